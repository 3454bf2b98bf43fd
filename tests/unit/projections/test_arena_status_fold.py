"""projections/arena.py: the arena's status per game, worked on a TCEC league's log: a game
not started (pending), one being played (its moves, clocks, last evaluation), one ended by the
TCEC crash rule (Leagues 14.2, with what was seen), one whose engine crashed under a preset
that has no crash rule (crashed, left to the arbiter), and the run limits with their seqs."""

from __future__ import annotations

from builders import created, move, player, recorded, round_

from events_schema import events as ev
from projections.arena import arena_status

CRASH = "the process died (exit code 3); stderr: test-crash: segmentation fault at move 2"
NODES = ev.RulingIssued(
    ruling_id="arena-limit-1",
    by="arena",
    subject="arena:limit",
    text="run-level limit: 500 nodes a move",
    decision={"nodes": 500},
)


def _league() -> list[ev.Event]:
    return [
        created(rules_preset="tcec-league"),
        *(player(p, kind="engine") for p in ("sf", "lc0", "crasher", "random")),
        NODES,
        round_(1, ("g1", "sf", "lc0"), ("g2", "crasher", "random")),
        round_(2, ("g3", "sf", "random")),
        ev.GameStarted(game_id="g1"),
        move("g1", 1, "e2e4", clock_ms=59_000, move_time_ms=1_000, eval_cp=35, depth=20),
        move("g1", 2, "e7e5", clock_ms=58_500, move_time_ms=1_500, eval_cp=-12, depth=18),
        move("g1", 3, "g1f3", clock_ms=58_100, move_time_ms=900),  # no evaluation
        ev.GameStarted(game_id="g2"),
        move("g2", 1, "d2d4"),
        move("g2", 2, "d7d5"),
        ev.EngineCrashed(game_id="g2", player_id="crasher", ply=2, detail=CRASH),
        ev.GameEnded(
            game_id="g2",
            result="0-1",
            termination="engine_crash",
            rule="tcec-rules Leagues 14.2",
            detail="crasher's engine crashed",
        ),
    ]


def test_each_game_reads_as_pending_playing_or_finished_with_its_rule():
    status = arena_status(recorded("tcec", _league()))
    assert status["tournament_id"] == "tcec" and status["seq"] == len(_league())
    assert status["counts"] == {"pending": 1, "playing": 1, "finished": 1, "crashed": 0}
    g1, g2, g3 = status["games"]
    assert [g["game_id"] for g in status["games"]] == ["g1", "g2", "g3"]  # scheduled order

    assert g1["state"] == "playing" and g1["plies"] == 3
    assert g1["white"] == {"player_id": "sf", "name": "Sf"}
    assert g1["last_move"]["uci"] == "g1f3" and g1["last_move"]["ply"] == 3
    assert g1["clocks"] == {"white_ms": 58_100, "black_ms": 58_500}
    # the last move that carries one: Black's at ply 2, White's point of view
    assert g1["evaluation"] == {"ply": 2, "cp": -12, "mate_in": None, "depth": 18}
    assert g1["result"] is None and g1["ending"] is None and g1["crashes"] == []

    assert g2["state"] == "finished" and g2["result"] == "0-1"
    assert g2["ending"] == "engine crash (tcec-rules Leagues 14.2)"
    assert g2["rule"] == "tcec-rules Leagues 14.2"
    (crash,) = g2["crashes"]
    assert (crash["player_id"], crash["ply"], crash["detail"]) == ("crasher", 2, CRASH)

    assert g3["state"] == "pending" and g3["plies"] == 0 and g3["last_move"] is None
    assert g3["clocks"] == {"white_ms": None, "black_ms": None} and g3["evaluation"] is None


def test_a_crash_no_rule_ended_is_crashed_with_what_was_seen():
    events = [e for e in _league() if not isinstance(e, ev.GameEnded)]
    events[0] = created(rules_preset="fide-round-robin")  # no crash rule
    (g2,) = [g for g in arena_status(recorded("rr", events))["games"] if g["game_id"] == "g2"]
    assert g2["state"] == "crashed" and g2["result"] is None and g2["ending"] is None
    assert g2["crashes"][0]["detail"] == CRASH and g2["crashes"][0]["name"] == "Crasher"


def test_the_run_limits_in_force_and_each_with_its_seq():
    later = ev.RulingIssued(
        ruling_id="arena-limit-2",
        by="arena",
        subject="arena:limit",
        text="the tournament's time control again",
        decision={"tournament_time_control": True},
    )
    tc = ev.TimeControl(name="TCEC league", base_seconds=1800, increment_seconds=3)
    events = _league()
    status = arena_status(recorded("tcec", events))
    (ruling,) = status["limits"]["rulings"]
    assert ruling["seq"] == 6 and ruling["decision"] == {"nodes": 500}  # the 6th event
    assert status["limits"]["in_force"]["source"] == "arena"
    assert status["limits"]["in_force"]["text"] == "run-level limit: 500 nodes a move"

    events = [created(rules_preset="tcec-league", time_controls=[tc]), *events[1:], later]
    status = arena_status(recorded("tcec", events))
    assert [r["seq"] for r in status["limits"]["rulings"]] == [6, len(events)]
    assert status["limits"]["in_force"] == {
        "source": "tournament",
        "text": "TCEC league: 30 min + 3 s a move",
        "decision": {"tournament_time_control": True},
    }


def test_a_retracted_crash_is_not_shown():
    events = [e for e in _league() if not isinstance(e, ev.GameEnded)]
    recs = recorded("tcec", events)
    crash_id = next(r.envelope.event_id for r in recs if isinstance(r.event, ev.EngineCrashed))
    events.append(ev.EventRetracted(retracted_event_id=crash_id, reason="the arena's own fault"))
    (g2,) = [g for g in arena_status(recorded("tcec", events))["games"] if g["game_id"] == "g2"]
    assert g2["state"] == "playing" and g2["crashes"] == []
