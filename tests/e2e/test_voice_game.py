"""The game's audio policy heard through real WebRTC: the Muto, the Ubriacone's victims, the eliminated.

The routing comes from `game.audio_policy` of a real Intruso game (a
scripted deal), applied to a RoomVoice with five connected client peers.
"""

from __future__ import annotations

import pytest

from audio import Routing
from client.rtc_peer import Tone
from game import apply, audio_policy, default_options, new_game, tick
from tests.e2e.spectrum import pitch_spread_cents
from tests.e2e.voice_room import TONES, levels, open_room

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

PRESENT = -30.0
ISOLATION = 60.0
DRUNK_CENTS = 40.0
CLEAN_CENTS = 10.0

# p1 the Muto (on the quietest bin, as it must vanish), p2 the Ubriacone,
# p3 and p4 its victims, p5 the Intruso.
SEATS = ["p1", "p2", "p3", "p4", "p5"]
TONE = dict(zip(SEATS, TONES, strict=False))


def _route(room, state) -> None:
    room.voice.set_routing(Routing.from_policy(audio_policy(state)))


async def test_muto_silent_in_clues_audible_in_debate_drunk_victims_wobble_eliminated_silent():
    players = [{"id": p, "name": p.upper()} for p in SEATS]
    state = new_game("intruso", default_options("intruso"), 7, players, 0.0,
                     deal={"roles": {"p5": "intruso"}, "powers": {"p1": "muto", "p2": "ubriacone"}})
    state, _ = apply(state, "p2", {"type": "intoxicate", "targets": ["p3", "p4"]}, 1.0)
    assert state.phase == "clues"

    room = await open_room({p: Tone(TONE[p]) for p in SEATS})
    try:
        # -- clues: the Muto is heard by nobody; the victims are drunk for everyone
        _route(room, state)
        clues = await room.listen(1.0)
        for victim in ("p3", "p4"):
            for listener in ("p1", "p5"):
                spread = pitch_spread_cents(clues[listener], TONE[victim])
                assert spread >= DRUNK_CENTS, (victim, listener, spread)
        for sober, listener in (("p2", "p5"), ("p5", "p2")):
            spread = pitch_spread_cents(clues[listener], TONE[sober])
            assert spread < CLEAN_CENTS, (sober, listener, spread)

        # -- debate: the Muto talks like everybody
        while state.phase == "clues":
            state, _ = tick(state, state.deadline)
        assert state.phase == "debate"
        _route(room, state)
        debate = await room.listen(1.0)
        muto_debate = levels(debate, TONE["p1"])
        for listener in SEATS[1:]:
            assert muto_debate[listener] > PRESENT, muto_debate
        heard = max(muto_debate.values())
        muto_clues = levels(clues, TONE["p1"])
        for listener, level in muto_clues.items():
            assert level < heard - ISOLATION, (listener, muto_clues, heard)

        # -- the vote eliminates the Muto (a Civile): silent from then on
        state, _ = tick(state, state.deadline)
        assert state.phase == "vote"
        t = state.phase_started + 1
        for voter in SEATS:
            state, _ = apply(state, voter, {"type": "vote", "target": "p2" if voter == "p1" else "p1"}, t)
        assert not state.player("p1").alive and state.phase == "clues"
        _route(room, state)
        after = levels(await room.listen(1.0), TONE["p1"])
        for listener, level in after.items():
            assert level < heard - ISOLATION, (listener, after, heard)
    finally:
        await room.close()
