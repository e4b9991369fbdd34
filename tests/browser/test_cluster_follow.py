"""Cluster mode in real Chromium (issue 12: "the web client follows it without the player
noticing"): a page whose socket goes to another node than the page's own, and a node
lost under two open pages, one of them served by the lost node itself. Both pages find
their room on the surviving node, keep their seats, and hear each other again."""

from __future__ import annotations

import pytest

from tests.browser.harness import create_room, join_room, launch_player, wait_until
from tests.support.cluster_proc import ClusterProc

# Two pages with voice and two server nodes: it runs alone (solo, see tests/conftest.py).
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.solo]


def test_pages_follow_their_room_to_another_node_with_voice(pw, tmp_path):
    with ClusterProc(tmp_path / "cluster", nodes=1) as cl:
        n1 = cl.nodes[0]
        ada = launch_player(pw, tmp_path, "Ada", 520.0)
        bea = launch_player(pw, tmp_path, "Bea", 960.0)
        try:
            code = create_room(n1, ada, "?testaudio=1")      # node1 is the only node: its room
            ada.page.click("#mic-enable")
            n2 = cl.add_node()
            # Bea's page comes from node2; her socket and voice go to node1, the room's node.
            join_room(n2, bea, code, query="?testaudio=1")
            bea.page.click("#mic-enable")
            assert cl.owner_of(code) == "node1"
            for me, other in ((ada, bea), (bea, ada)):
                wait_until(lambda me=me, other=other: me.levels([other.freq])[0] > -50,
                           timeout=40, what=f"{me.name} hears {other.name}")
            seats = {p.name: p.pid for p in (ada, bea)}
            urls = {p.name: p.page.url for p in (ada, bea)}

            n1.kill()  # Ada's page's own server and the room's node, both gone

            cl.wait_owner(code, lambda o: o == "node2", timeout=30)
            for p in (ada, bea):
                wait_until(lambda p=p: p.state("s.conn") == "open" and p.state("s.voice") == "on",
                           timeout=60, what=f"{p.name} reconnected with voice")
            for me, other in ((ada, bea), (bea, ada)):  # node1 is dead: this is node2's mix
                wait_until(lambda me=me, other=other: me.levels([other.freq])[0] > -50,
                           timeout=40, what=f"{me.name} hears {other.name} through node2")
            for p in (ada, bea):
                assert p.pid == seats[p.name]
                assert p.page.url == urls[p.name]               # no navigation: not noticed
                assert p.page.locator(".player-row").count() == 2
                assert not p.errors, (p.name, p.errors)
        finally:
            ada.context.close()
            bea.context.close()
