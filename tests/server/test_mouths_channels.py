"""Mouths and private channels (issue 10): a channel member also sees its mates' mouths,
everyone else sees them closed (left out, as a silent mouth is); one message per distinct
set of visible mouths."""

from __future__ import annotations

import json

from audio import Routing
from server.rooms.voicelink import VoiceLink

PIDS = ["p1", "p2", "p3", "p4"]


class Table:
    """A VoiceLink wired to fake sockets: what each listener received, in order."""

    def __init__(self, allowed=(), channels=()):
        self.allowed = set(allowed)
        self.routing = Routing(public=frozenset(self.allowed), channels=tuple(channels))
        self.online = list(PIDS)
        self.got: dict[str, list[str]] = {p: [] for p in PIDS}
        self.broadcasts = 0
        self.link = VoiceLink("ROOMS", [], self._send_all, lambda: self.allowed,
                              lambda: self.routing, listeners=self._listeners)

    def _send_all(self, text):
        self.broadcasts += 1
        for p in self.online:
            self.got[p].append(text)

    def _listeners(self):
        return [(p, self.got[p].append) for p in self.online]

    def levels(self, pid):
        return [json.loads(t)["levels"] for t in self.got[pid]]


def test_wolves_see_each_other_move_and_nobody_else_does():
    t = Table(allowed=(), channels=[frozenset({"p1", "p2"})])
    t.link._on_mouths({"p1": 0.6, "p2": 0.3, "p3": 0.0, "p4": 0.0})
    assert t.levels("p1") == [{"p1": 0.6, "p2": 0.3}]
    assert t.levels("p2") == t.levels("p1")
    for outsider in ("p3", "p4"):
        assert t.levels(outsider) == [{}]  # the wolves' mouths: closed, as silent ones
    # One message per set of visible mouths, shared by its listeners (the very same text).
    assert t.got["p1"][0] is t.got["p2"][0] and t.got["p3"][0] is t.got["p4"][0]
    assert t.broadcasts == 0


def test_public_mouths_and_channel_mates_add_up():
    t = Table(allowed=("p4",), channels=[frozenset({"p1", "p2"})])
    t.link._on_mouths({"p1": 0.5, "p2": 0.0, "p3": 0.7, "p4": 0.2})
    assert t.levels("p1")[-1] == {"p1": 0.5, "p4": 0.2}
    assert t.levels("p3")[-1] == {"p4": 0.2}


def test_silence_is_sent_once_to_each_listener():
    t = Table(channels=[frozenset({"p1", "p2"})])
    t.link._on_mouths({"p1": 0.5, "p2": 0.0, "p3": 0.0, "p4": 0.0})
    t.link._on_mouths({"p1": 0.4, "p2": 0.0, "p3": 0.0, "p4": 0.0})
    # The wolves got both; the others one silent message, not repeated.
    assert len(t.got["p1"]) == 2 and len(t.got["p3"]) == 1
    t.link._on_mouths({"p1": 0.0, "p2": 0.0, "p3": 0.0, "p4": 0.0})
    t.link._on_mouths({"p1": 0.0, "p2": 0.0, "p3": 0.0, "p4": 0.0})
    assert len(t.got["p1"]) == 3 and len(t.got["p3"]) == 1


def test_a_listener_back_online_gets_a_fresh_message():
    t = Table(channels=[frozenset({"p1", "p2"})])
    t.link._on_mouths({"p1": 0.0, "p2": 0.0, "p3": 0.0, "p4": 0.0})
    t.online.remove("p2")
    t.link._on_mouths({"p1": 0.0, "p2": 0.0, "p3": 0.0, "p4": 0.0})
    t.online.append("p2")
    t.link._on_mouths({"p1": 0.0, "p2": 0.0, "p3": 0.0, "p4": 0.0})
    assert len(t.got["p2"]) == 2 and len(t.got["p1"]) == 1


def test_without_channels_one_message_for_everyone():
    t = Table(allowed=set(PIDS))
    t.link._on_mouths({"p1": 0.5, "p2": 0.0, "p3": 0.0, "p4": 0.0})
    assert t.broadcasts == 1 and all(len(t.got[p]) == 1 for p in PIDS)
    # Channels come and go (phases change: the clients close every mouth): silence
    # sends nothing, and back without channels one message goes to everyone.
    t.routing = Routing(channels=(frozenset({"p1", "p2"}),))
    t.allowed = set()
    t.link._on_mouths({"p1": 0.0, "p2": 0.0, "p3": 0.0, "p4": 0.0})
    t.routing = Routing(public=frozenset(PIDS))
    t.allowed = set(PIDS)
    t.link._on_mouths({"p1": 0.0, "p2": 0.0, "p3": 0.0, "p4": 0.0})
    assert t.broadcasts == 1 and all(len(t.got[p]) == 1 for p in PIDS)
    t.link._on_mouths({"p1": 0.0, "p2": 0.0, "p3": 0.4, "p4": 0.0})
    assert t.broadcasts == 2 and all(len(t.got[p]) == 2 for p in PIDS)


def _phase_change_stream(day_levels):
    """A day whose last mouths were `day_levels`, then a night (nobody's mouth shown, then
    the wolves' channel): what the outsider p3 receives from nightfall on."""
    t = Table(allowed=set(PIDS))
    t.link._on_mouths(day_levels)
    t.link._on_mouths(day_levels)
    start = len(t.got["p3"])
    silent = {p: 0.0 for p in PIDS}
    t.allowed = set()
    t.routing = Routing()
    for _ in range(3):
        t.link._on_mouths(silent)
    t.routing = Routing(channels=(frozenset({"p1", "p2"}),))
    for _ in range(3):
        t.link._on_mouths({"p1": 0.5, "p2": 0.2, "p3": 0.0, "p4": 0.0})
    return t.got["p3"][start:]


def test_what_follows_a_phase_change_does_not_depend_on_who_spoke_before():
    """Issue 10 (side channels): from a phase's start, a listener's mouths stream is the
    same whether the day ended with somebody talking or in silence: nothing while the
    mouths it may see stay still (the client closes every mouth on a new phase)."""
    talking = _phase_change_stream({"p1": 0.6, "p2": 0.0, "p3": 0.0, "p4": 0.0})
    silent = _phase_change_stream({p: 0.0 for p in PIDS})
    assert talking == silent == []


def test_a_hidden_mouth_and_a_silent_one_give_the_same_message():
    """Only open mouths are listed: a muted player talking (hidden by the policy) and the
    same player silent must give the listener the very same bytes, or the message would
    tell who is muted."""
    hidden = Table(allowed=("p1", "p2", "p4"))
    hidden.link._on_mouths({"p1": 0.5, "p2": 0.0, "p3": 0.8, "p4": 0.0})  # p3 muted, talking
    silent = Table(allowed=set(PIDS))
    silent.link._on_mouths({"p1": 0.5, "p2": 0.0, "p3": 0.0, "p4": 0.0})  # p3 silent
    assert hidden.got["p2"] == silent.got["p2"] == ['{"type":"mouths","levels":{"p1":0.5}}']
