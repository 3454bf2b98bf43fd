"""`arbiter export opengotha`: a Go tournament as an OpenGotha tournament file, in the shape
OpenGotha's own writer gives it (`ExternalDocument.generateXMLFile`: `Players`, `Games`,
`ByePlayers`, `TournamentParameterSet`, then the team parameters and clubs groups), so that
OpenGotha opens it (`File > Open`) and `arbiter import opengotha` reads it back to the same
events.

Written from the events in force (corrections and retractions applied, the standings fold):
the players (name split as the file had it, else at the last blank; rank, club, country,
`participating` from the rounds skipped), every game of the main stage with its table,
colours, handicap and result (``RESULT_UNKNOWN`` while none is recorded), each round's
pairing-allocated bye, the McMahon, handicap and placement settings of `GoSettings` (the
categories of `category_lower_limits` as `numberOfCategories` and `Categories`).
Everything an import kept (`RulingIssued` "opengotha:file", "opengotha:players": EGF PIN,
licences, grade, `smmsCorrection`, pairing and display parameters, teams, results Arbiter
cannot score) is written back as it was; a tournament not imported from OpenGotha gets
OpenGotha's defaults for what Arbiter has no value for (`smmsCorrection` from the
supergroup). Normalised on the way: ranks as OpenGotha writes them (``13K``, ``2D``) and
`participating` 20 characters, 0 only for the rounds skipped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from xml.etree.ElementTree import Element, SubElement, indent, tostring

import defusedxml.ElementTree as SafeTree

from events_schema import Recorded
from events_schema.go import GoSettings
from projections.standings import fold
from projections.standings.state import GameRecord, StandingsState
from projections.tiebreaks.mcmahon import rank_value, supergroup
from services.interchange.opengotha.parse import MAX_ROUNDS, rank_text
from services.interchange.opengotha.plan import CRITERION, FILE_SUBJECT, PLAYERS_SUBJECT

#: Arbiter's criterion -> OpenGotha's long name.
CRITERION_NAME = {ours: theirs for theirs, ours in CRITERION.items()}
_RESULT = {
    ("1-0", False): "RESULT_WHITEWINS",
    ("0-1", False): "RESULT_BLACKWINS",
    ("1/2-1/2", False): "RESULT_EQUAL",
    ("0-0", False): "RESULT_BOTHLOSE",
    ("1-1", False): "RESULT_BOTHWIN",
    ("1-0", True): "RESULT_WHITEWINS_BYDEF",
    ("0-1", True): "RESULT_BLACKWINS_BYDEF",
    ("1/2-1/2", True): "RESULT_EQUAL_BYDEF",
    ("0-0", True): "RESULT_BOTHLOSE_BYDEF",
    ("1-1", True): "RESULT_BOTHWIN_BYDEF",
}
#: OpenGotha's defaults (ExternalDocument, Player) for a tournament not imported from a file.
ROOT_DEFAULT = {"dataVersion": "201"}
PLAYER_DEFAULT = {
    "agaExpirationDate": "",
    "agaId": "",
    "egfPin": "",
    "ffgLicence": "",
    "ffgLicenceStatus": "",
    "ratingOrigin": "",
    "registeringStatus": "FIN",
}


class ExportRefused(ValueError):
    """The tournament cannot be written as an OpenGotha file (`rule`, what to change)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule, self.message = rule, message


def _kept(state: StandingsState) -> tuple[dict[str, Any], dict[str, dict[str, str]]]:
    """The file's and the players' kept values (empty: not imported from OpenGotha)."""
    file: dict[str, Any] = {}
    players: dict[str, dict[str, str]] = {}
    for ruling in state.rulings.values():
        if ruling.subject == FILE_SUBJECT:
            file = dict(ruling.decision)
        elif ruling.subject == PLAYERS_SUBJECT:
            players.update(ruling.decision.get("players", {}))
    return file, players


def _split(name: str) -> tuple[str, str]:
    """A name without kept parts: name and first name at the last blank; a single word gets
    the first name "x", as OpenGotha's own importer gives it ("an empty first name is not
    allowed", `ExternalDocument.importPlayersAndGamesFromPlainFile`)."""
    head, _, tail = name.strip().rpartition(" ")
    return (head, tail) if head else (name.strip(), "x")


def _result(g: GameRecord) -> str:
    if not g.results:
        return "RESULT_UNKNOWN"
    _, _, result, term = g.results[-1]
    return _RESULT[(result, term == "forfeit")]


def _players(
    parent: Element,
    state: StandingsState,
    kept: Mapping[str, Mapping[str, str]],
    settings: GoSettings,
    rounds: int,
    keys: dict[str, str],
) -> None:
    skips = state.skips()
    order = sorted(state.players.values(), key=lambda p: (p.seed or 10**9, p.player_id))
    ranks = {p.player_id: p.go_rank for p in order}
    super_group = supergroup(settings, ranks)
    seen: dict[str, str] = {}
    for p in order:
        attrs = {**PLAYER_DEFAULT, **kept.get(p.player_id, {})}
        if "name" not in attrs or "firstName" not in attrs:
            attrs["name"], attrs["firstName"] = _split(p.name)
        rank = rank_value(p.go_rank) if p.go_rank else -30
        attrs["rank"] = rank_text(rank)
        attrs.setdefault("grade", rank_text(rank))
        attrs.setdefault(
            "rating", str(p.rating if p.rating is not None else (rank + 30) * 100 - 900)
        )
        corrected = settings.start_score_corrections.get(p.player_id, 0)
        corrected += p.player_id in super_group
        attrs.setdefault("smmsCorrection", str(corrected))
        attrs["club"] = p.club or ""
        attrs["country"] = p.federation or ""
        skipped = skips.get(p.player_id, frozenset())
        attrs["participating"] = "".join(
            "0" if r in skipped else "1" for r in range(1, MAX_ROUNDS + 1)
        )
        key = (attrs["name"] + attrs["firstName"]).replace(" ", "").upper()
        if key in seen:
            raise ExportRefused(
                "opengotha.homonym",
                f"{p.player_id} and {seen[key]} have one OpenGotha key {key!r}: OpenGotha "
                "refuses homonyms (rename one)",
            )
        seen[key] = p.player_id
        keys[p.player_id] = key
        SubElement(parent, "Player", dict(sorted(attrs.items())))


def _general(state: StandingsState, kept: Mapping[str, str], rounds: int) -> dict[str, str]:
    created = state.created
    assert created is not None
    settings = created.go or GoSettings()
    attrs = dict(kept)
    attrs.update(
        {
            "name": created.name,
            "numberOfRounds": str(rounds),
            "komi": str(created.komi),
            "size": str(created.board_size),
            "genMMFloor": rank_text(rank_value(settings.mcmahon_floor)),
            "genMMS2ValueBye": str(int(settings.bye_points * 2)),
            "genMMS2ValueAbsent": str(int(settings.absence_points * 2)),
            "genRoundDownNBWMMS": "true" if settings.round_down else "false",
            "genNBW2ValueBye": str(int(settings.nbw_bye_points * 2)),
            "genNBW2ValueAbsent": str(int(settings.nbw_absence_points * 2)),
            "genCountNotPlayedGamesAsHalfPoint": (
                "true" if settings.count_not_played_as_half_point else "false"
            ),
        }
    )
    # OpenGotha always has a bar; Arbiter's "no bar" is a bar above everyone (9D).
    attrs["genMMBar"] = rank_text(rank_value(settings.mcmahon_bar or "9d"))
    if created.starts_on is not None:
        attrs["beginDate"] = created.starts_on.isoformat()
    if created.ends_on is not None:
        attrs["endDate"] = created.ends_on.isoformat()
    for name, default in (("genMMZero", "30K"), ("shortName", created.name)):
        attrs.setdefault(name, default)
    if settings.category_lower_limits:  # OpenGotha GeneralParameterSet numberOfCategories
        attrs.setdefault("numberOfCategories", str(len(settings.category_lower_limits) + 1))
    return dict(sorted(attrs.items()))


def _xml(fragment: str) -> Element:
    """A kept element (an import's, read by defusedxml then) parsed back."""
    el: Element = SafeTree.fromstring(fragment.encode(), forbid_dtd=True)
    return el


def export_opengotha(records: Sequence[Recorded]) -> bytes:
    """The tournament of `records` as an OpenGotha XML file (UTF-8 bytes)."""
    state = fold(list(records))
    created = state.created
    if created is None:
        raise ExportRefused("opengotha.no_tournament", "the stream has no TournamentCreated")
    if created.game != "go":
        raise ExportRefused(
            "opengotha.not_go",
            f"{created.name!r} is a {created.game} tournament: OpenGotha is Go's",
        )
    settings = created.go or GoSettings()
    kept_file, kept_players = _kept(state)
    games = sorted(
        (g for g in state.games.values() if g.stage == "main"),
        key=lambda g: (g.round, g.board or 0, g.game_id),
    )
    byes = sorted(
        (b for _, bs in state.rounds.values() for b in bs if b.stage == "main"),
        key=lambda b: b.round,
    )
    played = max([g.round for g in games] + [b.round for b in byes], default=0)
    rounds = max(created.rounds or 0, played, 1)
    if rounds > MAX_ROUNDS:
        raise ExportRefused(
            "opengotha.rounds", f"{rounds} rounds: OpenGotha holds at most {MAX_ROUNDS}"
        )
    root = Element(
        "Tournament", dict(sorted({**ROOT_DEFAULT, **kept_file.get("root", {})}.items()))
    )
    keys: dict[str, str] = {}
    _players(SubElement(root, "Players"), state, kept_players, settings, rounds, keys)
    kept_games: Mapping[str, Mapping[str, str]] = kept_file.get("games", {})
    kept_results: Mapping[str, str] = kept_file.get("results", {})
    em_games = SubElement(root, "Games")
    tables: dict[int, int] = {}
    for g in games:
        table = g.board if g.board is not None else tables.get(g.round, 0) + 1
        tables[g.round] = max(tables.get(g.round, 0), table)
        attrs = {
            "blackPlayer": keys[g.black],
            "handicap": str(g.handicap),
            "knownColor": "true",
            **kept_games.get(g.game_id, {}),
            "result": kept_results.get(g.game_id)
            if not g.results and g.game_id in kept_results
            else _result(g),
            "roundNumber": str(g.round),
            "tableNumber": str(table),
            "whitePlayer": keys[g.white],
        }
        SubElement(em_games, "Game", {k: str(v) for k, v in sorted(attrs.items())})
    pairing_byes = [b for b in byes if b.kind == "pairing_allocated" and b.player_id in keys]
    if pairing_byes:
        em_byes = SubElement(root, "ByePlayers")
        for b in pairing_byes:
            SubElement(
                em_byes, "ByePlayer", {"player": keys[b.player_id], "roundNumber": str(b.round)}
            )
    tps = SubElement(root, "TournamentParameterSet")
    gps = SubElement(
        tps, "GeneralParameterSet", _general(state, kept_file.get("general", {}), rounds)
    )
    if kept_file.get("categories"):
        gps.append(_xml(kept_file["categories"]))
    elif settings.category_lower_limits:
        # OpenGotha ExternalDocument: <Categories><Category number="1" lowerLimit="5D"/>…
        cats = SubElement(gps, "Categories")
        for n, low in enumerate(settings.category_lower_limits, start=1):
            SubElement(
                cats, "Category", {"lowerLimit": rank_text(rank_value(low)), "number": str(n)}
            )
    hps = {
        "hdBasedOnMMS": "true",
        "hdNoHdRankThreshold": "1D",
        **kept_file.get("handicap", {}),
        "hdCeiling": str(settings.handicap_ceiling if settings.handicap != "none" else 0),
        "hdCorrection": str(settings.handicap_correction),
    }
    SubElement(tps, "HandicapParameterSet", dict(sorted(hps.items())))
    criteria: list[str] = kept_file.get("criteria") or [
        CRITERION_NAME[c] for c in settings.criteria
    ]
    pps = SubElement(SubElement(tps, "PlacementParameterSet"), "PlacementCriteria")
    for n in range(1, 7):
        name = criteria[n - 1] if n <= len(criteria) else "NULL"
        SubElement(pps, "PlacementCriterion", {"name": name, "number": str(n)})
    kept_sets = kept_file.get("parameter_sets", [])
    for fragment in kept_sets:
        tps.append(_xml(fragment))
    if not any(f.startswith("<DPParameterSet") for f in kept_sets):
        # OpenGotha hides the players never paired unless displayNPPlayers is true
        shown = "false" if settings.hide_players_never_paired else "true"
        SubElement(tps, "DPParameterSet", {"displayNPPlayers": shown})
    for fragment in kept_file.get("others", []):
        root.append(_xml(fragment))
    indent(root)
    body = tostring(root, encoding="unicode")
    return ('<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n' + body + "\n").encode()
