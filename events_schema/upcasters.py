"""Upcasters: stored payloads of an old `schema_version` are brought to the current one at
decode time (`upcast_vN_vN+1`). Stored bytes are never rewritten, so the hash chain holds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Payload = dict[str, Any]
Upcaster = Callable[[Payload], Payload]


def upcast_v1_v2_player_registered(payload: Payload) -> Payload:
    """PlayerRegistered v1 had `engine: bool` and `version`; v2 has `kind` and
    `engine_version`."""
    out = {k: v for k, v in payload.items() if k not in ("engine", "version")}
    out["kind"] = "engine" if payload.get("engine") else "human"
    if payload.get("version") is not None:
        out["engine_version"] = payload["version"]
    return out


def upcast_v1_v2_tournament_created(payload: Payload) -> Payload:
    """TournamentCreated v2 adds `pairing`, `adjudication`, `starts_on`, `ends_on` and
    `tiebreak_edition`. A v1 tournament pairs by its format's default system (None), keeps
    entering its endings by hand ("manual"), as it did when it was created (no move of it
    starts ending games by itself), and keeps the C.07 2024 text it was ranked by, so no
    published standings change on replay."""
    return {
        **payload,
        "pairing": None,
        "adjudication": "manual",
        "tiebreak_edition": "fide-2024",
    }


def upcast_v1_v2_game_started(payload: Payload) -> Payload:
    """GameStarted v2 adds `source` (imported games); a v1 game has none."""
    return {**payload, "source": None}


def upcast_v1_v2_game_ended(payload: Payload) -> Payload:
    """GameEnded v2 adds `rule`; a v1 ending named none (it was entered by hand)."""
    return {**payload, "rule": None}


def upcast_v2_v3_tournament_created(payload: Payload) -> Payload:
    """TournamentCreated v3 adds `go` (Go settings); a v2 tournament has none (a Go
    tournament then runs on the defaults of `events_schema.go.GoSettings`)."""
    return {**payload, "go": None}


def upcast_v2_v3_player_registered(payload: Payload) -> Payload:
    """PlayerRegistered v3 adds `go_rank`; a v2 player has none."""
    return {**payload, "go_rank": None}


def upcast_v3_v4_player_registered(payload: Payload) -> Payload:
    """PlayerRegistered v4 adds `fide_id`; a v3 player has none recorded."""
    return {**payload, "fide_id": None}


def upcast_v4_v5_player_registered(payload: Payload) -> Payload:
    """PlayerRegistered v5 adds `club`; a v4 player has none recorded."""
    return {**payload, "club": None}


def upcast_v2_v3_game_ended(payload: Payload) -> Payload:
    """GameEnded v3: `go_score` gains `margin` and `dead_stones`; a v2 score had neither."""
    score = payload.get("go_score")
    if isinstance(score, dict):
        return {**payload, "go_score": {**score, "margin": None, "dead_stones": []}}
    return payload


def upcast_v1_v2_appeal_filed(payload: Payload) -> Payload:
    """AppealFiled v2 adds `game_id`; a v1 appeal named no game."""
    return {**payload, "game_id": None}


def upcast_v1_v2_appeal_decided(payload: Payload) -> Payload:
    """AppealDecided v2 adds who decided; a v1 decision recorded no one."""
    return {**payload, "committee": [], "co_opted": [], "quorum_note": ""}


def upcast_v1_v2_round_scheduled(payload: Payload) -> Payload:
    """RoundScheduled v2: each pairing has a Go `handicap`; a v1 pairing was even."""
    pairings = payload.get("pairings")
    if not isinstance(pairings, list):
        return payload
    return {
        **payload,
        "pairings": [{**p, "handicap": 0} if isinstance(p, dict) else p for p in pairings],
    }


def upcast_v1_v2_sanction_issued(payload: Payload) -> Payload:
    """SanctionIssued v2 adds `round`; a v1 sanction named none."""
    return {**payload, "round": None}


def upcast_v1_v2_server_interrupted(payload: Payload) -> Payload:
    """ServerInterrupted v2 adds `web_server_only`; a v1 interruption was the game server's."""
    return {**payload, "web_server_only": False}


#: (type, from_version) -> upcaster to from_version + 1
def upcast_v1_v2_move_played(payload: Payload) -> Payload:
    """MovePlayed v2 adds `pv`; a v1 move kept no principal variation."""
    return {**payload, "pv": None}


UPCASTERS: dict[tuple[str, int], Upcaster] = {
    ("PlayerRegistered", 1): upcast_v1_v2_player_registered,
    ("TournamentCreated", 1): upcast_v1_v2_tournament_created,
    ("GameStarted", 1): upcast_v1_v2_game_started,
    ("GameEnded", 1): upcast_v1_v2_game_ended,
    ("TournamentCreated", 2): upcast_v2_v3_tournament_created,
    ("PlayerRegistered", 2): upcast_v2_v3_player_registered,
    ("PlayerRegistered", 3): upcast_v3_v4_player_registered,
    ("PlayerRegistered", 4): upcast_v4_v5_player_registered,
    ("GameEnded", 2): upcast_v2_v3_game_ended,
    ("AppealFiled", 1): upcast_v1_v2_appeal_filed,
    ("RoundScheduled", 1): upcast_v1_v2_round_scheduled,
    ("SanctionIssued", 1): upcast_v1_v2_sanction_issued,
    ("ServerInterrupted", 1): upcast_v1_v2_server_interrupted,
    ("AppealDecided", 1): upcast_v1_v2_appeal_decided,
    ("MovePlayed", 1): upcast_v1_v2_move_played,
}


def upcast(type_name: str, version: int, payload: Payload, target: int) -> Payload:
    """Apply upcasters from `version` up to `target`; a missing step is an error."""
    while version < target:
        step = UPCASTERS.get((type_name, version))
        if step is None:
            raise LookupError(f"no upcaster for {type_name} v{version} -> v{version + 1}")
        payload = step(payload)
        version += 1
    return payload
