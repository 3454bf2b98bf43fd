"""A parsed OpenGotha file as the events that record the same tournament, as it was played
(`to_plan`: the import's plan, each event with the element it records). Nothing is paired:
the rounds are recorded as the file has them (`RoundScheduled` with each game's table,
colours and handicap, the round's bye player), then their results.

The order: `TournamentCreated` (Go, McMahon, the file's name, dates, rounds, komi, size and
`GoSettings` read from the parameter sets below; a Swiss file, NBW its first placement
criterion, is paired by the Swiss for Go: `pairing` "go-swiss"); the kept values of the file
(`RulingIssued` "opengotha:file"); one `PlayerRegistered` per Player in file order (id
``p001``…, seed the file's order); their kept values ("opengotha:players", 200 players a
ruling); then per round: a `RoundSkipped` for each player not participating in it
(`participating` 0, no game, no bye: OpenGotha's absent player, `genMMS2ValueAbsent`), the
round's `RoundScheduled` (games ``r{round}-t{table}``, the bye a `pairing_allocated` bye),
one `GameEnded` per result; last, the rounds not played yet that players will skip.

Read into Arbiter's settings (OpenGotha `GeneralParameterSet`, `HandicapParameterSet`,
`PlacementParameterSet`, `DPParameterSet`), OpenGotha's behaviour the default for an imported
file where the LGC rules are silent (events_schema/go.py):

* `genMMBar`, `genMMFloor` -> `mcmahon_bar`, `mcmahon_floor`; `genMMS2ValueBye`,
  `genMMS2ValueAbsent`, `genNBW2ValueBye`, `genNBW2ValueAbsent` (in half points) ->
  `bye_points`, `absence_points`, `nbw_bye_points`, `nbw_absence_points`;
  `genRoundDownNBWMMS` -> `round_down`; `genCountNotPlayedGamesAsHalfPoint` ->
  `count_not_played_as_half_point`; `hdCorrection`, `hdCeiling` -> `handicap_correction`,
  `handicap_ceiling` (`handicap` "rank_difference", or "none" with a ceiling of 0);
  `displayNPPlayers` false (OpenGotha's default) -> `hide_players_never_paired`;
* `smmsCorrection` -> `supergroup_size` when the players corrected by +1 are exactly those
  Arbiter's supergroup of that size takes (`projections/tiebreaks/mcmahon.py`: the
  strongest at or above the bar, a whole rank at a time), else `start_score_corrections`;
* placement criteria (OpenGotha `PlacementParameterSet.allPlacementCriteria` long names) ->
  `criteria`, the McMahon ones without their M: MMS, SOSM, SOSM-1, SOSM-2, SOSOSM, SODOSM,
  CUSSM, STS, SOSTS -> MMS, SOS, SOS-1, SOS-2, SOSOS, SODOS, CUSS, STS, SOSTS; NBW, SOSW,
  SOSW-1, SOSW-2, SOSOSW, SODOSW, CUSSW, EXT, EXR, DC, SDC, CAT, CPS as named; Rating, Rank ->
  RATING, RANK (NBW first: the Swiss system for Go; each computed in
  `projections/tiebreaks/mcmahon.py`); `numberOfCategories` and `Categories` ->
  `category_lower_limits` (CAT);
* a game without a result is counted as OpenGotha counts it (`unentered_results`
  "opengotha": played, no point for either side);
* the standings count `numberOfRounds`, the rounds not played yet as rounds without a game,
  as OpenGotha's final standings and exports do (`count_planned_rounds`).

Results: ``RESULT_WHITEWINS``/``BLACKWINS`` 1-0/0-1, ``EQUAL`` ½-½ (a jigo), ``BOTHLOSE``
0-0, ``BOTHWIN`` 1-1, each ``_BYDEF`` the same with termination forfeit; ``RESULT_UNKNOWN``
no result yet.

**Kept, and written back by the export** (`export.py`): every attribute Arbiter does not read
into an event (EGF PIN, licences, grade, rating origin, registering status,
`smmsCorrection`, pairing and display parameters, teams, clubs groups, categories,
`knownColor`, the full placement criteria), in two `RulingIssued` decisions
(`projections/rulings.py` subjects ``opengotha:*``).

**Reported by name** (`Convention`), never dropped silently: what Arbiter cannot express
yet, with how its standings then differ from OpenGotha's: `genMMZero` other than 30K,
a jigo where the komi has a half point, placement criteria Arbiter does not have (a name
OpenGotha does not know, which OpenGotha reads as NULL), `hdBasedOnMMS` false in a McMahon
file (true in a Swiss file with handicaps: Arbiter's Swiss gives them from the ranks),
`smmsCorrection` beyond -1..2, pre-registered players, categories (ranked by CAT, not kept
apart in the pairing), teams, games paired for a player marked not participating, an end
date before the begin date.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, TypeVar

import defusedxml.ElementTree as SafeTree
from pydantic import ValidationError

from events_schema import events as ev
from events_schema.go import (
    MAX_CATEGORY_LIMITS,
    START_CORRECTION_MAX,
    START_CORRECTION_MIN,
    GoCriterion,
    GoSettings,
)
from projections.go.scoring import komi_for
from projections.tiebreaks.mcmahon import rank_name, supergroup
from services.interchange.opengotha.parse import (
    OgFile,
    OgGame,
    OgPlayer,
    OpenGothaError,
    day,
    decimal,
    flag,
    number,
    rank_value,
)
from services.interchange.pipeline import Planned

E = TypeVar("E", bound=ev.Event)
NAMESPACE = uuid.UUID("6b1f3c2e-8d4a-4f59-a7c1-0e9d2b5f7a13")  # OpenGotha import event ids
SOURCE = "imported from OpenGotha"
FILE_SUBJECT, PLAYERS_SUBJECT = "opengotha:file", "opengotha:players"
FILE_RULING = "opengotha-file"
PLAYERS_PER_RULING = 200
GPS, HPS = "GeneralParameterSet", "HandicapParameterSet"

#: OpenGotha criterion -> Arbiter's (GoSettings.criteria).
CRITERION: dict[str, GoCriterion] = {
    "MMS": "MMS",
    "SOSM": "SOS",
    "SOSOSM": "SOSOS",
    "SODOSM": "SODOS",
    "DC": "DC",
    "Rating": "RATING",
    "NBW": "NBW",
    "SOSW": "SOSW",
    "SOSOSW": "SOSOSW",
    "SODOSW": "SODOSW",
    "SOSM-1": "SOS-1",
    "SOSM-2": "SOS-2",
    "SOSW-1": "SOSW-1",
    "SOSW-2": "SOSW-2",
    "CUSSM": "CUSS",
    "CUSSW": "CUSSW",
    "STS": "STS",
    "SOSTS": "SOSTS",
    "EXT": "EXT",
    "EXR": "EXR",
    "SDC": "SDC",
    "Rank": "RANK",
    "CAT": "CAT",
    "CPS": "CPS",
}
#: Attributes read into events (the export writes them from the events); the rest is kept.
PLAYER_READ = frozenset({"rank", "club", "country", "participating"})
GENERAL_READ = frozenset(
    {
        "name",
        "beginDate",
        "endDate",
        "numberOfRounds",
        "komi",
        "size",
        "genMMFloor",
        "genMMBar",
        "genMMS2ValueBye",
        "genMMS2ValueAbsent",
        "genRoundDownNBWMMS",
        "genNBW2ValueBye",
        "genNBW2ValueAbsent",
        "genCountNotPlayedGamesAsHalfPoint",
    }
)
HANDICAP_READ = frozenset({"hdCorrection", "hdCeiling"})
#: result -> (Arbiter result, termination)
RESULT_OF: dict[str, tuple[ev.Result, ev.Termination]] = {
    "RESULT_WHITEWINS": ("1-0", "other"),
    "RESULT_BLACKWINS": ("0-1", "other"),
    "RESULT_EQUAL": ("1/2-1/2", "other"),
    "RESULT_BOTHLOSE": ("0-0", "other"),
    "RESULT_BOTHWIN": ("1-1", "other"),
    "RESULT_WHITEWINS_BYDEF": ("1-0", "forfeit"),
    "RESULT_BLACKWINS_BYDEF": ("0-1", "forfeit"),
    "RESULT_EQUAL_BYDEF": ("1/2-1/2", "forfeit"),
    "RESULT_BOTHLOSE_BYDEF": ("0-0", "forfeit"),
    "RESULT_BOTHWIN_BYDEF": ("1-1", "forfeit"),
}


@dataclass(frozen=True)
class Convention:
    """An OpenGotha convention of the file Arbiter cannot express yet: its name as OpenGotha
    names it, and what Arbiter does instead."""

    name: str
    what: str

    def __str__(self) -> str:
        return f"{self.name}: {self.what}"


@dataclass
class OgPlan:
    planned: list[Planned]
    settings: GoSettings
    conventions: list[Convention] = field(default_factory=list)
    players: int = 0
    rounds: int = 0  # rounds played (with a game or a bye)
    games: int = 0
    results: int = 0


def player_id(p: OgPlayer) -> str:
    return f"p{p.index:03d}"


def game_id(rnd: int, table: int) -> str:
    return f"r{rnd}-t{table}"


def _count(n: int, one: str) -> str:
    return f"{n} {one}" if n == 1 else f"{n} {one}s"


def _halves(g: dict[str, str], name: str, out: list[Convention]) -> Decimal:
    """A `gen…2Value…` attribute (OpenGotha counts these in half points; the XML reader's
    default is 0) as points: 0, ½ or 1."""
    value = number(g, name, GPS, 0)
    if not 0 <= value <= 2:
        out.append(Convention(name, f"{value} half points: Arbiter's are 0, ½ or 1; read as 1"))
        value = min(max(value, 0), 2)
    return Decimal(value) / 2


def settings_of(og: OgFile, out: list[Convention]) -> GoSettings:
    """The file's McMahon, handicap, placement and display settings as `GoSettings`, with
    OpenGotha's conventions for what the LGC rules leave open (events_schema/go.py): the
    per-player start score corrections, a game without a result counted as played
    (`unentered_results` "opengotha"), the virtual scoring of unplayed rounds, the Swiss
    points, the players never paired left out of the standings (`displayNPPlayers`)."""
    g, h = og.general, og.handicap
    floor = rank_value(g.get("genMMFloor", "20K"), f"{GPS} genMMFloor")
    bar = rank_value(g.get("genMMBar", "4D"), f"{GPS} genMMBar")
    zero = rank_value(g.get("genMMZero", "30K"), f"{GPS} genMMZero")
    if bar < floor:
        raise OpenGothaError(
            f"{GPS} genMMBar", "opengotha.bar_below_floor", "the McMahon bar is below the floor"
        )
    if zero != -30:
        out.append(
            Convention(
                "genMMZero",
                f"McMahon zero {g['genMMZero']}: Arbiter's is 30K, so every MMS and SOS is "
                f"{zero + 30} points above OpenGotha's (the places are the same)",
            )
        )
    ceiling = number(h, "hdCeiling", HPS, 9)
    correction = number(h, "hdCorrection", HPS, 1)
    for name, value in (("hdCeiling", ceiling), ("hdCorrection", correction)):
        if not 0 <= value <= 9:
            raise OpenGothaError(f"{HPS} {name}", "opengotha.handicap", "0 to 9 stones")
    # A Swiss file (NBW its first criterion, OpenGotha `tournamentType`) is paired by
    # Arbiter's Swiss for Go, whose handicaps come from the ranks as OpenGotha's Swiss does
    # (`HandicapParameterSet.initForSwiss`: hdBasedOnMMS false); McMahon's from the MMS.
    first = next((CRITERION[n] for n in og.criteria if n in CRITERION), None)
    swiss = first == "NBW"
    based_on_mms = flag(h, "hdBasedOnMMS", True)
    if not based_on_mms and not swiss:
        out.append(
            Convention(
                "hdBasedOnMMS",
                "false: OpenGotha gives handicaps from the ranks; Arbiter's pairing from the "
                "McMahon scores (the games imported keep their own handicaps)",
            )
        )
    if based_on_mms and swiss and ceiling > 0:
        out.append(
            Convention(
                "hdBasedOnMMS",
                "true in a Swiss: OpenGotha gives handicaps from the McMahon scores; "
                "Arbiter's Swiss pairing from the ranks (the games imported keep their own "
                "handicaps)",
            )
        )
    criteria: list[GoCriterion] = []
    others = []
    for name in og.criteria:
        mapped = CRITERION.get(name)
        if mapped is not None and mapped not in criteria and len(criteria) < 6:
            criteria.append(mapped)
        else:
            others.append(name)
    if others:
        out.append(
            Convention(
                "placement criteria",
                f"{', '.join(others)} not applied: Arbiter's Go criteria are "
                f"{', '.join(CRITERION)}; players still level after them share the place",
            )
        )
    settings = GoSettings(
        category_lower_limits=_category_limits(og),
        mcmahon_bar=rank_name(bar),
        mcmahon_floor=rank_name(floor),
        handicap="none" if ceiling == 0 else "rank_difference",
        handicap_correction=correction,
        handicap_ceiling=ceiling,
        bye_points=_halves(g, "genMMS2ValueBye", out),
        absence_points=_halves(g, "genMMS2ValueAbsent", out),
        nbw_bye_points=_halves(g, "genNBW2ValueBye", out),
        nbw_absence_points=_halves(g, "genNBW2ValueAbsent", out),
        round_down=flag(g, "genRoundDownNBWMMS", True),
        unentered_results="opengotha",
        count_planned_rounds=True,
        count_not_played_as_half_point=flag(g, "genCountNotPlayedGamesAsHalfPoint", False),
        hide_players_never_paired=not flag(og.display, "displayNPPlayers", False),
        criteria=criteria or ["MMS"],
    )
    return _with_corrections(settings, og, out)


def _category_limits(og: OgFile) -> list[str]:
    """The lower rank limits of the categories (OpenGotha `ExternalDocument` reads
    `GeneralParameterSet` `numberOfCategories` and each `Categories/Category` `number`,
    `lowerLimit` into `lowerCategoryLimits[number - 1]`, numberOfCategories - 1 of them; a
    limit the file does not give stays Java's 0, 1D). One category: none."""
    n = number(og.general, "numberOfCategories", GPS, 1)
    if n <= 1 or not og.categories:
        return []
    n = min(n, MAX_CATEGORY_LIMITS + 1)
    limits = ["1d"] * (n - 1)
    for el in SafeTree.fromstring(og.categories.encode(), forbid_dtd=True).iter("Category"):
        at = number(dict(el.attrib), "number", "Category", 1)
        if 1 <= at <= n - 1:
            where = f"Category {at} lowerLimit"
            limits[at - 1] = rank_name(rank_value(el.attrib.get("lowerLimit", "30K"), where))
    return limits


def _with_corrections(settings: GoSettings, og: OgFile, out: list[Convention]) -> GoSettings:
    """OpenGotha `Player.smms` adds each player's `smmsCorrection`: Arbiter's
    `supergroup_size` when the players at +1 are exactly a supergroup (the strongest at or
    above the bar, whole ranks), else `start_score_corrections` player by player (-1 to 2,
    OpenGotha's range; beyond it reported and bounded)."""
    corrected = {player_id(p): p.smms_correction for p in og.players if p.smms_correction}
    if not corrected:
        return settings
    up = frozenset(pid for pid, c in corrected.items() if c == 1)
    if len(up) == len(corrected):
        trial = settings.model_copy(update={"supergroup_size": len(up)})
        ranks = {player_id(p): rank_name(p.rank) for p in og.players}
        if supergroup(trial, ranks) == up:
            return trial
    beyond = [
        f"{p.name} {p.first_name} {p.smms_correction:+d}"
        for p in og.players
        if not START_CORRECTION_MIN <= p.smms_correction <= START_CORRECTION_MAX
    ]
    if beyond:
        out.append(
            Convention(
                "smmsCorrection",
                f"{', '.join(beyond[:6])}: OpenGotha's corrections are {START_CORRECTION_MIN} "
                f"to {START_CORRECTION_MAX}; Arbiter bounds them there",
            )
        )
    bounded = {
        pid: min(max(c, START_CORRECTION_MIN), START_CORRECTION_MAX) for pid, c in corrected.items()
    }
    return settings.model_copy(update={"start_score_corrections": bounded})


def _checked(where: str, cls: type[E], **fields: Any) -> E:
    """The event, or the element refused naming the field out of range."""
    try:
        return cls(**fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(x) for x in first["loc"])
        raise OpenGothaError(where, "opengotha.out_of_range", f"{field}: {first['msg']}") from None


def created_of(
    og: OgFile, settings: GoSettings, name: str | None, out: list[Convention]
) -> ev.TournamentCreated:
    g = og.general
    starts, ends = day(g, "beginDate"), day(g, "endDate")
    if starts is not None and ends is not None and ends < starts:
        out.append(
            Convention(
                "endDate",
                f"{ends} is before beginDate {starts}: OpenGotha keeps it; Arbiter records the "
                "tournament ending on its first day",
            )
        )
        ends = starts
    size = number(g, "size", GPS, 19)
    if not 5 <= size <= 25:
        raise OpenGothaError(f"{GPS} size", "opengotha.size", f"board size {size}: 5 to 25")
    komi = decimal(g, "komi", GPS, "7.5")
    if komi * 2 != (komi * 2).to_integral_value() or abs(komi) > 1000:
        raise OpenGothaError(f"{GPS} komi", "opengotha.komi", f"komi {komi}: whole or half points")
    title = (g.get("name") or "").strip() or (name or "OpenGotha import")
    return _checked(
        f"{GPS}",
        ev.TournamentCreated,
        name=title[:200],
        game="go",
        format="mcmahon",
        # OpenGotha `TournamentParameterSet.tournamentType`: NBW as the first placement
        # criterion is its Swiss (TYPE_SWISS), paired as one (projections/pairing/go_swiss.py)
        pairing="go-swiss" if settings.criteria[0] == "NBW" else None,
        rounds=og.rounds,
        board_size=size,
        komi=komi,
        starts_on=starts,
        ends_on=ends,
        go=settings,
    )


def _player_event(p: OgPlayer) -> ev.PlayerRegistered:
    return _checked(
        p.where,
        ev.PlayerRegistered,
        player_id=player_id(p),
        name=f"{p.name} {p.first_name}"[:200],
        rating=p.rating if 0 <= p.rating <= 4000 else None,
        federation=p.country[:8] or None,
        seed=p.index,
        go_rank=rank_name(p.rank),
        club=p.club[:200] or None,
    )


def _result(
    g: OgGame, created: ev.TournamentCreated, out: dict[str, int]
) -> tuple[ev.Result, ev.Termination] | None:
    """The result Arbiter records for `g`, None when it cannot (counted in `out`)."""
    mapped = RESULT_OF.get(g.result)
    if mapped is None:  # RESULT_UNKNOWN: scheduled, no result yet
        return None
    if mapped[0] == "1/2-1/2":
        komi = komi_for(g.handicap, created.komi)
        if komi != komi.to_integral_value():
            out["jigo"] = out.get("jigo", 0) + 1
            return None
    return mapped


def to_plan(og: OgFile, *, name: str | None = None, file_name: str = "OpenGotha") -> OgPlan:
    """The events recording `og` (module docstring), with the conventions reported."""
    conventions: list[Convention] = []
    settings = settings_of(og, conventions)
    created = created_of(og, settings, name, conventions)
    pid = {p.index: player_id(p) for p in og.players}
    events: list[tuple[ev.Event, str]] = [(created, f"{file_name} {GPS}")]
    unrecorded: dict[str, int] = {}
    kept_games: dict[str, dict[str, str]] = {}
    kept_results: dict[str, str] = {}
    by_round: dict[int, list[OgGame]] = {}
    for g in og.games:
        by_round.setdefault(g.round, []).append(g)
        gid = game_id(g.round, g.table)
        extra = {k: v for k, v in g.attrs.items() if k in ("knownColor", "strKnownColor")}
        if extra and extra != {"knownColor": "true"}:
            kept_games[gid] = extra
        if g.result in RESULT_OF and _result(g, created, {}) is None:
            kept_results[gid] = g.result
    bye_of = {b.round: og.player(b.player, b.where) for b in og.byes}
    played = og.played_rounds

    # -- what is reported -------------------------------------------------------------------
    pre = [p for p in og.players if p.registering != "FIN"]
    if pre:
        conventions.append(
            Convention(
                "registeringStatus PRE",
                f"{_count(len(pre), 'pre-registered player')} (OpenGotha does not pair them): "
                "Arbiter registers them as players",
            )
        )
    if number(og.general, "numberOfCategories", GPS, 1) > 1:
        conventions.append(
            Convention(
                "numberOfCategories",
                "categories are kept and ranked by the CAT criterion; Arbiter's pairing does "
                "not keep them apart (OpenGotha paiMaAvoidMixingCategories)",
            )
        )
    if any(o.startswith("<Teams>") for o in og.others):
        conventions.append(Convention("Teams", "the teams are kept, not ranked by Arbiter"))
    in_round: dict[int, set[int]] = {}
    for g in og.games:
        in_round.setdefault(g.round, set()).update(
            {og.player(g.white, g.where).index, og.player(g.black, g.where).index}
        )
    for r, p in bye_of.items():
        in_round.setdefault(r, set()).add(p.index)
    marked = sorted(
        (r, p.index)
        for r, ps in in_round.items()
        for p in og.players
        if p.index in ps
        if not p.participates(r)
    )
    if marked:
        shown = ", ".join(f"{og.players[i - 1].where} round {r}" for r, i in marked[:5])
        conventions.append(
            Convention(
                "participating",
                f"paired while marked not participating ({shown}): the game is recorded",
            )
        )

    # -- the kept values --------------------------------------------------------------------
    kept_file: dict[str, Any] = {
        "root": og.root,
        "general": {k: v for k, v in og.general.items() if k not in GENERAL_READ},
        "handicap": {k: v for k, v in og.handicap.items() if k not in HANDICAP_READ},
        "criteria": og.criteria,
        "categories": og.categories,
        "parameter_sets": og.parameter_sets,
        "others": og.others,
        "games": kept_games,
        "results": kept_results,
    }
    for g in og.games:
        _result(g, created, unrecorded)
    if unrecorded.get("jigo"):
        conventions.append(
            Convention(
                "RESULT_EQUAL",
                f"{_count(unrecorded['jigo'], 'jigo')} with a half point of komi: Arbiter's Go "
                "has no jigo there (LGC Scoring); kept, not scored",
            )
        )
    text = (
        f"{SOURCE}: the values Arbiter keeps and does not use, written back by "
        "`arbiter export opengotha`."
    )
    if conventions:
        text += " Not expressed by Arbiter: " + "; ".join(str(c) for c in conventions)
    events.append(
        (
            ev.RulingIssued(
                ruling_id=FILE_RULING,
                by=SOURCE,
                subject=FILE_SUBJECT,
                rule="OpenGotha ExternalDocument.java",
                text=text[:8000],
                decision=kept_file,
            ),
            f"{file_name} Tournament",
        )
    )
    for p in og.players:
        events.append((_player_event(p), f"{file_name} {p.where}"))
    for start in range(0, len(og.players), PLAYERS_PER_RULING):
        chunk = og.players[start : start + PLAYERS_PER_RULING]
        n = start // PLAYERS_PER_RULING + 1
        events.append(
            (
                ev.RulingIssued(
                    ruling_id=f"opengotha-players-{n}",
                    by=SOURCE,
                    subject=PLAYERS_SUBJECT,
                    rule="OpenGotha ExternalDocument.java",
                    text=f"{SOURCE}: the players' values Arbiter keeps and does not use "
                    f"(players {start + 1}-{start + len(chunk)})",
                    decision={
                        "players": {
                            pid[p.index]: {k: v for k, v in p.attrs.items() if k not in PLAYER_READ}
                            for p in chunk
                        }
                    },
                ),
                f"{file_name} {chunk[0].where}",
            )
        )

    # -- the rounds -------------------------------------------------------------------------
    results = 0
    for r in range(1, max(played, og.rounds) + 1):
        for p in og.players:
            if not p.participates(r) and p.index not in in_round.get(r, set()):
                skipped = ev.RoundSkipped(
                    player_id=pid[p.index],
                    round=r,
                    notice="exceptional",
                    reason=f"{SOURCE}: not participating in round {r}",
                )
                events.append((skipped, f"{file_name} {p.where} participating"))
        games = sorted(by_round.get(r, []), key=lambda g: g.table)
        if not games and r not in bye_of:
            continue
        pairings = []
        for g in games:
            w, b = og.player(g.white, g.where), og.player(g.black, g.where)
            pairings.append(
                ev.Pairing(
                    game_id=game_id(r, g.table),
                    white=pid[w.index],
                    black=pid[b.index],
                    board=g.table,
                    handicap=g.handicap,
                )
            )
        byes = [ev.Bye(player_id=pid[bye_of[r].index])] if r in bye_of else []
        events.append(
            (ev.RoundScheduled(round=r, pairings=pairings, byes=byes), f"{file_name} round {r}")
        )
        for g in games:
            mapped = _result(g, created, {})
            if mapped is None:
                continue
            results += 1
            ended = ev.GameEnded(
                game_id=game_id(r, g.table),
                result=mapped[0],
                termination=mapped[1],
                detail=f"{SOURCE}: {g.result}",
            )
            events.append((ended, f"{file_name} {g.where}"))
    planned = [Planned(str(i), e, w) for i, (e, w) in enumerate(events)]
    return OgPlan(
        planned,
        settings,
        conventions,
        players=len(og.players),
        rounds=played,
        games=len(og.games),
        results=results,
    )
