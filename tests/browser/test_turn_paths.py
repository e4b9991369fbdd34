"""A network that lets no UDP through (issue 36 item 5): a real Chromium page reaches the
server's voice through the real coturn over TCP, and over TLS, and hears the room.

The server hands out TURN credentials for one coturn URL only, `turn:...?transport=tcp`
or `turns:...?transport=tcp` (coturn on 127.0.0.1 with a certificate made here for
127.0.0.1); Ada's page opens the room with the test-only `?relay=1` (web/js/rtc.js:
`iceTransportPolicy: "relay"`), so her only candidates are coturn's relayed ones, reached
over TCP or TLS: no UDP leaves her page. Bea's page plays a tone into the room. Ada hears
it, and her selected pair's local candidate is a relay over the expected protocol.
./scripts/test.sh installs coturn; without it (or openssl) the test is skipped.
"""

from __future__ import annotations

import pytest

from tests.browser.harness import create_room, join_room, launch_player, wait_until
from tests.support.coturn import Coturn
from tests.support.server_proc import ServerProc

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SECRET = "turn paths secret"

# The selected candidate pair's local candidate, as the page's voice sees it.
SELECTED = """async () => {
  const out = {};
  const stats = await window.__pc.getStats();
  stats.forEach((r) => {
    if (r.type === "transport" && r.selectedCandidatePairId) {
      const pair = stats.get(r.selectedCandidatePairId);
      const local = pair && stats.get(pair.localCandidateId);
      if (local) Object.assign(out, { type: local.candidateType, relayProtocol: local.relayProtocol,
                                      protocol: local.protocol, url: local.url });
    }
  });
  return out;
}"""

# Keep the page's newest RTCPeerConnection in window.__pc.
KEEP_PC = """(() => {
  const Native = window.RTCPeerConnection;
  window.RTCPeerConnection = function (...args) { const pc = new Native(...args); window.__pc = pc; return pc; };
  window.RTCPeerConnection.prototype = Native.prototype;
})();"""


@pytest.fixture(scope="module")
def coturn(tmp_path_factory):
    """coturn on 127.0.0.1: plain TCP/UDP on one port, TLS on another (a self-made cert)."""
    if not Coturn.available(tls=True):
        pytest.skip("coturn's turnserver or openssl is not installed (./scripts/test.sh installs them)")
    with Coturn(tmp_path_factory.mktemp("coturn"), SECRET, tls=True) as turn:
        yield turn.urls, turn.log


@pytest.mark.parametrize("transport", ["tcp", "tls"])
def test_a_page_without_udp_hears_the_room_through_coturn(coturn, pw, tmp_path, transport):
    urls, log = coturn
    srv = ServerProc(tmp_path / "s.db", env={
        "SUSSURRO_TURN_URLS": urls[transport], "SUSSURRO_TURN_SECRET": SECRET})
    srv.start()
    # The TLS certificate is this test's own: the browser is told to take it.
    ada = launch_player(pw, tmp_path, "Ada", 520.0, extra_args=["--ignore-certificate-errors"])
    bea = launch_player(pw, tmp_path, "Bea", 960.0)
    ada.page.add_init_script(KEEP_PC)
    try:
        code = create_room(srv, ada, "?testaudio=1&relay=1")
        ada.page.click("#mic-skip")
        join_room(srv, bea, code, query="?testaudio=1")
        bea.page.click("#mic-enable")
        try:
            wait_until(lambda: ada.state("s.voice") == "on", timeout=40, what="Ada's voice on")
        except AssertionError:
            raise AssertionError(f"{ada.state('JSON.stringify(s.voice)')} "
                                 f"{ada.page.evaluate('window.__sussurro.voiceInfo()')}\n"
                                 f"{log.read_text(errors='replace')[-3000:]}") from None
        wait_until(lambda: ada.levels([bea.freq])[0] > -50, timeout=30, what="Ada hears Bea")
        got = ada.page.evaluate(SELECTED)
        assert got.get("type") == "relay", got
        assert got.get("relayProtocol") == transport, got
        assert "?relay=1" in ada.page.url or "relay=1" in ada.page.url
        assert not ada.errors, ada.errors
    finally:
        ada.context.close()
        bea.context.close()
        srv.stop()
