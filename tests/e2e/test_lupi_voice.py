"""Lupi Mannari's voice rules heard through real WebRTC, against a real `sussurro serve`.

Six bots, each "speaking" a tone in syllables once the cards are dealt, and a silent
human moderator who moves the game on; who hears whom is read from the spectrum of what
each bot records, and who sees whose mouth from the `mouths` messages each bot receives:

- at night a contadino's recording holds no wolf's tone and no ghost's;
- the wolves hear each other and nobody else, and see only each other's mouths move
  (nobody else sees a wolf's mouth);
- a wolf and a contadino who reload in the middle of the wolves' phase hear and see
  exactly what their card allows (routing and view rebuilt from the game state);
- during a defence only the defender is heard;
- a ghost's tone is in no mix for the rest of the game (a devoured contadino, then a
  lynched wolf who is no longer in the pack's channel).
"""

from __future__ import annotations

import asyncio

import pytest

from client.rtc_peer import Syllables
from tests.e2e.bots import close_all, listen
from tests.e2e.lupi_table import lupi_table, phase, rejoin, role, start
from tests.e2e.voice_room import TONES, levels
from tests.support.server_proc import ServerProc

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

# A voice routed to a listener: about -15 to -30 dBFS (lower when five voices share one mix
# and its limiter, and for syllables' pauses).
PRESENT = -40.0
# A voice that is not routed is an exact zero in the mix, so all that can show at its
# frequency is the codec's noise around the voices that are heard (50 dB or more below
# them). A leak would be as loud as a voice.
NOT_HEARD = 40.0
MOVING = 0.05


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    with ServerProc(tmp_path_factory.mktemp("lupi") / "s.db") as server:
        yield server


def mouths_since(bot, mark: int) -> list[dict[str, float]]:
    return [m["levels"] for m in bot.client.messages[mark:] if m["type"] == "mouths"]


def assert_not_heard(rec, tones: dict, speakers, listeners, heard: float, what: str) -> None:
    for speaker in speakers:
        lv = levels(rec, tones[speaker.pid])
        for b in listeners:
            if b is not speaker:
                assert lv[b.pid] < heard - NOT_HEARD, (what, speaker.pid, b.pid, lv, heard)


async def test_night_day_defence_and_ghosts_as_the_rules_say(srv):
    # A silent human moderator (the host) moves the game on, so a loaded machine cannot
    # make a phase end in the middle of a measurement; the seer's phase runs its time.
    table = await lupi_table(srv.base_url, 7, {"lupi": 2, "timers": {
        "night": 120, "seer": 5, "wolves": 120, "day": 120, "vote": 120, "defence": 120}})
    mod, bots = table[0], table[1:]
    try:
        mark = mod.client.mark()
        await mod.client.send("settings", options={"moderator": mod.pid})
        await mod.client.wait_for(lambda m: m["type"] == "room", since=mark)
        await start(table)
        wolves = [b for b in bots if role(b) == "lupo"]
        humans = [b for b in bots if role(b) != "lupo"]
        contadini = [b for b in humans if role(b) == "contadino"]
        w1, w2 = wolves
        sleeper, prey = contadini[0], contadini[1]  # one reloads at night, one is devoured
        # Tones by seat: the contadino who will be a ghost by day on the quietest bin (it
        # must vanish among five voices); every voice in syllables so the mouth meter sees
        # speech.
        order = [prey, w1, *[h for h in humans if h is not prey], w2]
        tone = {b.pid: hz for b, hz in zip(order, TONES, strict=True)}
        for b in bots:
            b.speak(Syllables(tone[b.pid]))
        await mod.client.act({"type": "advance"})

        # ---- night 1, the wolves' phase: w2 picks, then w1 and a contadino reload
        await phase(bots, "wolves")
        await w2.client.act({"type": "bite", "target": prey.pid})
        await w2.client.wait_view(lambda v: v["me"]["pack_picks"] == {w2.pid: prey.pid})
        before = dict(sleeper.client.view)
        await asyncio.gather(rejoin(w1), rejoin(sleeper))
        v = await w1.client.wait_view(lambda v: v["phase"] == "wolves")
        assert v["me"]["can"] == ["bite"] and v["me"]["pack_picks"] == {w2.pid: prey.pid}
        assert v["me"]["pack"] == sorted([w1.pid, w2.pid], key=[b.pid for b in bots].index)
        assert sleeper.client.view == before  # the very same view: nothing of the night
        await w1.client.act({"type": "bite", "target": prey.pid})
        marks = {b.pid: b.client.mark() for b in table}
        night = await listen(srv.base_url, table, 1.0)
        heard = min(levels(night, tone[w2.pid])[w1.pid], levels(night, tone[w1.pid])[w2.pid])
        assert heard > PRESENT, "the wolves hear each other"
        assert_not_heard(night, tone, wolves, humans, heard, "a wolf heard at night")
        assert_not_heard(night, tone, humans, bots, heard, "a public voice at night")
        await asyncio.sleep(0.3)
        for w, mate in ((w1, w2), (w2, w1)):
            seen = mouths_since(w, marks[w.pid])
            assert max(m.get(mate.pid, 0.0) for m in seen) > MOVING, (w.pid, seen[-3:])
            assert all(m.get(h.pid, 0.0) == 0.0 for m in seen for h in humans)
        for h in humans:
            seen = mouths_since(h, marks[h.pid])
            assert all(not any(m.values()) for m in seen), (h.pid, seen[:3])
        # The moderator hears the pack and sees its mouths (004: they watch it agree).
        assert min(levels(night, tone[w.pid])[mod.pid] for w in wolves) > PRESENT
        seen = mouths_since(mod, marks[mod.pid])
        assert max(m.get(w1.pid, 0.0) for m in seen) > MOVING

        # ---- day 1: the devoured contadino is a ghost, heard by nobody
        await mod.client.act({"type": "advance"})
        await phase(bots, "day")
        living = [b for b in bots if b is not prey]
        assert not prey.client.view["me"]["alive"]
        marks = {b.pid: b.client.mark() for b in bots}
        day = await listen(srv.base_url, bots, 1.0)
        talk = levels(day, tone[sleeper.pid])
        heard = min(talk[b.pid] for b in bots if b is not sleeper)
        assert heard > PRESENT, talk
        assert_not_heard(day, tone, [prey], bots, heard, "a ghost heard by day")
        seen = [m for b in bots for m in mouths_since(b, marks[b.pid])]
        assert max(m.get(w1.pid, 0.0) for m in seen) > MOVING
        assert all(m.get(prey.pid, 0.0) == 0.0 for m in seen)

        # ---- nomination (the ghost votes too): w2 and the sleeper; w2 defends first
        for b in living:
            await b.client.act({"type": "ready"})  # all ready: the nomination opens
        await phase(bots, "nomination")
        for b in bots:
            target = sleeper.pid if b is w2 else w2.pid
            await b.client.act({"type": "vote", "target": target})
        await phase(bots, "defence")
        assert w2.client.view["defender"] == w2.pid
        defence = await listen(srv.base_url, bots, 1.0)
        heard = min(levels(defence, tone[w2.pid])[b.pid] for b in bots if b is not w2)
        assert heard > PRESENT, "everyone hears the defender"
        others = [b for b in bots if b is not w2]
        assert_not_heard(defence, tone, others, bots, heard, "a voice during a defence")

        # ---- w2 yields, the sleeper yields, the lynch takes w2: one wolf left
        await w2.client.act({"type": "ready"})
        await sleeper.client.wait_view(lambda v: v["defender"] == sleeper.pid)
        await sleeper.client.act({"type": "ready"})
        await phase(bots, "lynch")
        for b in bots:
            if "vote" in b.client.view["me"]["can"]:
                await b.client.act({"type": "vote", "target": w2.pid})
        await phase(bots, "night", day=2)
        await mod.client.act({"type": "advance"})
        await phase(bots, "wolves", day=2)

        # ---- night 2: the lynched wolf is a ghost, out of the channel, heard by nobody
        marks = {b.pid: b.client.mark() for b in bots}
        night2 = await listen(srv.base_url, bots, 1.0)
        for ghost in (prey, w2):
            lv = levels(night2, tone[ghost.pid])
            assert all(lv[b.pid] < PRESENT - NOT_HEARD for b in bots if b is not ghost), lv
        lv = levels(night2, tone[w1.pid])
        assert all(lv[b.pid] < PRESENT - NOT_HEARD for b in bots if b is not w1), lv
        await asyncio.sleep(0.3)
        for b in bots:
            assert all(m.get(w2.pid, 0.0) == 0.0 for m in mouths_since(b, marks[b.pid]))
    finally:
        await close_all(table)
