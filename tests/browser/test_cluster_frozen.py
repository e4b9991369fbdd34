"""Issue 33 items 2 and 3 in real Chromium: a page whose room's node (and the page's own
server) freezes (SIGSTOP: its sockets stay open, nothing answers) notices within a few
seconds, finds the room on the node that took it over, and keeps playing there, while
the frozen node is still frozen."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.browser.harness import create_room, launch_player, wait_until
from tests.support.cluster_proc import ClusterProc

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_issue33_2_a_page_leaves_a_frozen_node_and_finds_its_room_elsewhere(pw, tmp_path):
    with ClusterProc(tmp_path / "cluster", nodes=1) as cl:
        n1 = cl.nodes[0]
        ada = launch_player(pw, tmp_path, "Ada", 520.0, mic="missing")
        try:
            code = create_room(n1, ada)                     # node1 is the only node: its room
            n2 = cl.add_node()
            time.sleep(2.0)        # a few beats: Ada's page learns of node2 (`nodes`)
            cl.pause(n1)           # the room's node and the page's own server freeze
            try:
                cl.wait_owner(code, lambda o: o == "node2", timeout=30)
                # A newcomer joins on node2: only a page that left node1 can see her.
                httpx.post(n2.url(f"/api/rooms/{code}/join"), json={"name": "Bea"},
                           timeout=10).raise_for_status()
                wait_until(lambda: ada.page.locator(".player-row").count() == 2
                           and ada.state("s.conn") == "open",
                           timeout=30, what="Ada's page back in her room on node2")
            finally:
                cl.resume(n1)
            assert not ada.errors, ada.errors
        finally:
            ada.context.close()
