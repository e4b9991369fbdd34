"""Room placement (issue 12: "Creating a room places it on the least-loaded live node
(with a ramp-up, so that a fresh node is not flooded)")."""

from __future__ import annotations

from collections import Counter

from server.cluster.placement import RAMP_LOAD, NodeLoad, assign, pick, score

NOW = 10_000.0
OLD = NOW - 3600


def test_the_least_loaded_live_node_takes_the_room():
    nodes = [NodeLoad("a", "u", cpu=0.6, started=OLD), NodeLoad("b", "u", cpu=0.2, started=OLD),
             NodeLoad("c", "u", cpu=0.4, started=OLD)]
    assert pick(nodes, NOW, ramp=60).id == "b"


def test_a_draining_or_excluded_node_takes_nothing():
    nodes = [NodeLoad("a", "u", cpu=0.9, started=OLD),
             NodeLoad("b", "u", cpu=0.0, started=OLD, draining=True),
             NodeLoad("c", "u", cpu=0.1, started=OLD)]
    assert pick(nodes, NOW, ramp=60).id == "c"
    assert pick(nodes, NOW, ramp=60, exclude=["c"]).id == "a"
    assert pick([nodes[1]], NOW, ramp=60) is None


def test_held_rooms_count_before_they_cost_cpu():
    # Two idle nodes: the one holding fewer (quiet) rooms gets the next one.
    nodes = [NodeLoad("a", "u", rooms=3, started=OLD), NodeLoad("b", "u", rooms=1, started=OLD)]
    assert pick(nodes, NOW, ramp=60).id == "b"
    # ... even if CPU noise of an idle node (heartbeats, forwarded requests) says otherwise.
    nodes = [NodeLoad("a", "u", cpu=0.06, rooms=0, started=OLD),
             NodeLoad("b", "u", cpu=0.01, rooms=1, started=OLD)]
    assert pick(nodes, NOW, ramp=60).id == "a"


def test_a_fresh_node_ramps_up_instead_of_taking_every_new_room():
    busy = NodeLoad("old", "u", cpu=0.1, rooms=2, started=OLD)
    fresh = NodeLoad("new", "u", started=NOW)
    # At birth the new node counts as RAMP_LOAD busy: the old one still gets rooms.
    assert score(fresh, NOW, 60) == RAMP_LOAD
    assert pick([busy, fresh], NOW, ramp=60).id == "old"
    # Of 20 rooms placed at once, the fresh node takes some but not all.
    placed = Counter(assign([f"R{i:02d}" for i in range(20)], [busy, fresh], NOW, ramp=60)
                     .values())
    assert 0 < placed["new"] < 20 and placed["old"] > 0
    # Once its ramp-up is over, it is simply the least loaded.
    assert pick([busy, fresh], NOW + 60, ramp=60).id == "new"


def test_a_dead_nodes_rooms_spread_evenly_and_every_sweeper_agrees():
    nodes = [NodeLoad("a", "u", started=OLD), NodeLoad("b", "u", started=OLD),
             NodeLoad("c", "u", started=OLD, draining=True)]
    codes = ["KXQ2P", "ABCDE", "M7M7M", "ZZZZZ"]
    first = assign(codes, nodes, NOW, ramp=60)
    assert Counter(first.values()) == {"a": 2, "b": 2}
    # The same registry seen in another order gives the same answer.
    assert assign(list(reversed(codes)), list(reversed(nodes)), NOW, ramp=60) == first
