"""Issue 29, the HTTP/WebSocket edge: items 3 (/metrics and /healthz tell no secret),
8 (idle connections and request heads bounded), 9 (no cross-site requests) and
12 (a lone surrogate in a client's text is a clear error, not `internal`)."""

from __future__ import annotations

import httpx

from tests.server.roomkit import close_all, fresh_picture, started

LONE = "\\ud800"  # as JSON text: a UTF-16 surrogate with no pair, not Unicode text


# ---- item 12: a lone surrogate --------------------------------------------------------


async def test_item12_a_clue_with_a_lone_surrogate_is_a_bad_message_and_changes_nothing(
        shared_server):
    clients = await started(shared_server, 3)
    try:
        turn = next(c for c in clients if c.player == clients[0].view["turn"])
        before = await fresh_picture(turn)
        for raw in (
            '{"type": "action", "action": {"type": "clue", "text": "zo' + LONE + 'rp"}}',
            '{"type": "kick", "player": "' + LONE + '"}',
            '{"type": "hello", "client": "' + LONE + '"}',
            '{"type": "ping", "ref": "' + LONE + '"}',
            '{"type": "ping", "' + LONE + '": 1}',
        ):
            mark = turn.mark()
            await turn.send_raw(raw)
            err = await turn.wait_for(lambda m: m["type"] == "error", since=mark)
            assert err["code"] == "bad_message", (raw, err)
            assert "surrogate" in err["message"], err
            assert "ref" not in err, err  # the bad text is not echoed back
        assert await fresh_picture(turn) == before
        assert not turn.closed
    finally:
        await close_all(clients)
    log = shared_server.log_tail(400)
    assert "Traceback" not in log and "failed" not in log, log


def test_item12_a_name_with_a_lone_surrogate_is_a_bad_request_on_create_and_join(shared_server):
    headers = {"Content-Type": "application/json"}
    r = httpx.post(shared_server.url("/api/rooms"), headers=headers,
                   content='{"name": "Ada' + LONE + '"}')
    assert r.status_code == 422 and r.json()["code"] == "bad_request", r.text
    assert "surrogate" in r.json()["message"]
    code = httpx.post(shared_server.url("/api/rooms"), json={"name": "Ada"}).json()["code"]
    r = httpx.post(shared_server.url(f"/api/rooms/{code}/join"), headers=headers,
                   content='{"name": "B' + LONE + 'b"}')
    assert r.status_code == 422 and r.json()["code"] == "bad_request", r.text
    players = httpx.get(shared_server.url(f"/api/rooms/{code}")).json()["players"]
    assert [p["name"] for p in players] == ["Ada"]
    assert "Traceback" not in shared_server.log_tail(400)
