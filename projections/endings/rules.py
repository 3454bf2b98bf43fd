"""Each event's own list of game endings, as data, every rule with its article.

A `Ruleset` names the endings a rules preset (`TournamentCreated.rules_preset`) allows and how
each is reached: `automatic` rules are decided from the moves alone (`adjudicator.py`), the
others arrive as events (a resignation, an agreed draw, a FIDE claim). `ruleset_for(preset)`
gives the list; `Ruleset.rule(name)` one rule with its citation.

Readings (rules/README style; each is the `note` of the rule it concerns):

- **TCEC Swiss, Cup, Leagues** (Swiss 5–6, Cup 5–6, Leagues 9–10): wins by mate, the opponent's
  illegal move, resignation, tablebase adjudication, loss on time; draws by three-fold
  repetition, the fifty-move rule, stalemate, tablebase adjudication and the TCEC draw rule. All
  automatic (cutechess-cli ends the game itself). Insufficient material is **not** in any TCEC
  list, so it ends nothing here (with a prober, a bare-kings position is a 6-man tablebase
  draw; without one the draw rule or the fifty-move rule ends it).
- **TCEC FRD** (FRD 5–6) names only repetition and fifty moves among draws (6.a), the draw rule
  (6.b), tablebase adjudication (6.c) and loss on time (5.b). Mate and stalemate are not
  listed, yet a game without legal moves cannot go on: we read them as the laws of chess for
  Chess960 the FRD page refers to (FIDE Guidelines II). The illegal-move loss is read across
  from Swiss 6.d / Leagues 10.4 (the same arena forfeits it in every TCEC event).
- **TCEC 4k** (4k 1–2): its own §2 lists the endings — wins by mate, illegal move, resignation,
  time; draws by repetition, fifty moves, stalemate — and no draw rule nor tablebase
  adjudication. 4k 0.1 "Rules in main leagues apply" is read as filling what the 4k page leaves
  open (its example is books and pondering), not as adding endings to a list §2 states: so no
  TCEC draw rule and no tablebase adjudication in 4k.
- **Human chess** (`fide-*`, `gct*`, `czech-*`, no preset): the FIDE Laws of Chess (the seeds do
  not carry them; articles of the 2023 Laws). Checkmate, stalemate and a dead position end the
  game at once (5.1.1, 5.2.1, 5.2.2; a dead position is approximated by python-chess's
  `is_insufficient_material`, which only sees material, not locked pawns); five-fold repetition
  and 75 moves end it at once too (9.6.1, 9.6.2), recorded with the nearest `Termination`
  ("threefold_repetition", "fifty_move_rule"). Three-fold and fifty moves are claims (9.2,
  9.3): not automatic. An illegal move is for the arbiter (7.5), not an ending. A flag fall
  loses unless the opponent cannot mate (6.9). GCT Armageddon games (2.5.2 / 3.5.2): a draw is
  a win for Black; `gct-tour-playoff` (§4) has no Armageddon.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from events_schema.events import Termination

RuleName = Literal[
    "checkmate",
    "resignation",
    "illegal_move",
    "time_forfeit",
    "stalemate",
    "threefold_repetition",
    "fifty_move_rule",
    "fivefold_repetition",
    "seventy_five_move_rule",
    "dead_position",
    "agreement",
    "tablebase",
    "tcec_draw_rule",
    "engine_crash",
    "armageddon",
    "counting",
    "late_arrival",
]
FlagFall = Literal["loss", "fide-6.9"]
InterruptionWording = Literal["swiss", "leagues"]


@dataclass(frozen=True, slots=True)
class Rule:
    """One way a game ends under a preset."""

    name: RuleName
    termination: Termination
    citation: str  # "tcec-rules Leagues 10.2"
    automatic: bool  # decided from the moves (the adjudicator) or declared by an event
    note: str = ""  # our reading, where the text is silent or leaves room


@dataclass(frozen=True, slots=True)
class Ruleset:
    """A preset's endings. `tablebase_men` is the men count (kings and pawns included, as Syzygy
    counts them) at or below which tablebase adjudication runs when a prober is configured."""

    name: str
    source: str
    rules: tuple[Rule, ...]
    flag_fall: FlagFall
    interruption: InterruptionWording | None = None  # TCEC server-interruption wording
    interruption_article: str = ""  # "tcec-rules Swiss 7.b" → scenarios "…7.b.ii"
    tablebase_men: int | None = None

    def rule(self, name: RuleName) -> Rule | None:
        for r in self.rules:
            if r.name == name:
                return r
        return None

    def has(self, name: RuleName) -> bool:
        return self.rule(name) is not None

    def citation(self, name: RuleName) -> str:
        r = self.rule(name)
        if r is None:
            raise KeyError(f"{self.name}: no rule {name!r}")
        return r.citation

    @property
    def terminations(self) -> frozenset[Termination]:
        """The `GameEnded.termination` values this preset allows (besides rulings:
        "adjudication", "arbiter_decision", "forfeit", which any event may record)."""
        return frozenset(r.termination for r in self.rules)


# --- TCEC ------------------------------------------------------------------------------------


def _tcec(
    name: str,
    section: str,
    *,
    ending: str,  # "6" / "10"
    time: str,  # the loss-on-time article
    wins: str | None,  # the article listing wins ("6.d"); None: not listed
    draws: str,  # the article listing draws ("6.a")
    draw_rule: str | None,
    tablebase: str | None,
    crash: str,
    interruption: InterruptionWording,
    interruption_article: str,
    stalemate: str | None,
    illegal: str | None = None,  # the illegal-move article when not the wins article
    illegal_note: str = "",
    mate_note: str = "",
    stalemate_note: str = "",
) -> Ruleset:
    art = f"tcec-rules {section}"
    win_art = f"{art} {wins}" if wins else f"{art} {ending} (laws of chess)"
    rules: list[Rule] = [
        Rule("checkmate", "checkmate", win_art, True, mate_note),
        Rule("resignation", "resignation", win_art, False),
        Rule("illegal_move", "illegal_move", illegal or win_art, True, illegal_note),
        Rule("time_forfeit", "time_forfeit", f"{art} {time}", True),
        Rule("threefold_repetition", "threefold_repetition", f"{art} {draws}", True),
        Rule("fifty_move_rule", "fifty_move_rule", f"{art} {draws}", True),
    ]
    if stalemate is not None:
        rules.append(Rule("stalemate", "stalemate", f"{art} {stalemate}", True, stalemate_note))
    if tablebase is not None:
        rules.append(Rule("tablebase", "tablebase", f"{art} {tablebase}", True))
    if draw_rule is not None:
        rules.append(Rule("tcec_draw_rule", "tcec_draw_rule", f"{art} {draw_rule}", True))
    rules.append(Rule("engine_crash", "engine_crash", f"{art} {crash}", False))
    return Ruleset(
        name=name,
        source=f"{art} {ending}",
        rules=tuple(rules),
        flag_fall="loss",
        interruption=interruption,
        interruption_article=f"{art} {interruption_article}",
        tablebase_men=6 if tablebase is not None else None,
    )


def _swiss_numbered(
    name: str,
    section: str,
    *,
    wins: str | None = "6.d",
    stalemate: str = "6.a",
    illegal: str | None = None,
    illegal_note: str = "",
    mate_note: str = "",
    stalemate_note: str = "",
) -> Ruleset:
    """TCEC Swiss, Cup and FRD number their endings alike (Swiss 5–7, Cup 5–7, FRD 5–7); FRD
    lists no wins and no stalemate (the keyword arguments)."""
    return _tcec(
        name,
        section,
        ending="6",
        time="5.b",
        wins=wins,
        draws="6.a",
        draw_rule="6.b",
        tablebase="6.c",
        crash="7.a",
        interruption="swiss",
        interruption_article="7.b",
        stalemate=stalemate,
        illegal=illegal,
        illegal_note=illegal_note,
        mate_note=mate_note,
        stalemate_note=stalemate_note,
    )


SWISS = _swiss_numbered("tcec-swiss", "Swiss")
CUP = _swiss_numbered("tcec-cup", "Cup")
LEAGUES = _tcec(
    "tcec-league",
    "Leagues",
    ending="10",
    time="10.5",
    wins="10.4",
    draws="10.1",
    draw_rule="10.2",
    tablebase="10.3",
    crash="14.2",
    interruption="leagues",
    interruption_article="14.1",
    stalemate="10.1",
)
_FRD_LAWS = (
    "FRD 6 lists no wins and no stalemate; read as the laws of chess for Chess960 "
    "(FIDE Guidelines II, which the FRD page cites)"
)
FRD = _swiss_numbered(
    "tcec-frd",
    "FRD",
    wins=None,
    stalemate="6 (laws of chess)",
    mate_note=_FRD_LAWS,
    stalemate_note=_FRD_LAWS,
    illegal="tcec-rules Swiss 6.d (read across)",
    illegal_note="FRD is silent; read across from Swiss 6.d / Leagues 10.4",
)
FOUR_K = _tcec(
    "tcec-4k",
    "4k",
    ending="2",
    time="1.2",
    wins="2.1",
    draws="2.2",
    draw_rule=None,
    tablebase=None,
    crash="6.2",
    interruption="leagues",
    interruption_article="6.1",
    stalemate="2.2",
)

# --- FIDE Laws (human chess) -------------------------------------------------------------------

_LAWS = "FIDE Laws"


def _fide(name: str, source: str, armageddon: str | None = None) -> Ruleset:
    rules = [
        Rule("checkmate", "checkmate", f"{_LAWS} 5.1.1", True),
        Rule("resignation", "resignation", f"{_LAWS} 5.1.2", False),
        Rule("time_forfeit", "time_forfeit", f"{_LAWS} 6.9", True),
        Rule("stalemate", "stalemate", f"{_LAWS} 5.2.1", True),
        Rule(
            "dead_position",
            "insufficient_material",
            f"{_LAWS} 5.2.2",
            True,
            "approximated by python-chess is_insufficient_material (material only)",
        ),
        Rule("agreement", "agreement", f"{_LAWS} 5.2.3", False),
        Rule("threefold_repetition", "threefold_repetition", f"{_LAWS} 9.2", False, "a claim"),
        Rule("fifty_move_rule", "fifty_move_rule", f"{_LAWS} 9.3", False, "a claim"),
        Rule(
            "fivefold_repetition",
            "threefold_repetition",
            f"{_LAWS} 9.6.1",
            True,
            "no Termination literal of its own: recorded as threefold_repetition",
        ),
        Rule(
            "seventy_five_move_rule",
            "fifty_move_rule",
            f"{_LAWS} 9.6.2",
            True,
            "no Termination literal of its own: recorded as fifty_move_rule",
        ),
    ]
    if armageddon is not None:
        rules.append(
            Rule("armageddon", "armageddon", armageddon, True, "a draw is a win for Black")
        )
    return Ruleset(name=name, source=source, rules=tuple(rules), flag_fall="fide-6.9")


FIDE = _fide("fide", _LAWS)
GCT_RAPID_BLITZ = _fide("gct-rapid-blitz", f"{_LAWS}; GCT 2022 §2", armageddon="GCT 2022 2.5.2")
GCT_CLASSICAL = _fide("gct-classical", f"{_LAWS}; GCT 2022 §3", armageddon="GCT 2022 3.5.2")
GCT_TOUR = _fide("gct-tour-playoff", f"{_LAWS}; GCT 2022 §4 (no Armageddon)")


# --- LGC (Go) ----------------------------------------------------------------------------------

#: How a Go game ends under the LGC Tournament Rules. The decider ends Go games itself
#: (projections/tournament/go_play.py); the chess adjudicator never runs for them. Listed so
#: that `arbiter games` and the endings table name the articles.
LGC = Ruleset(
    name="lgc",
    source="LGC Tournament Rules (2023)",
    rules=(
        Rule("counting", "counting", "LGC Scoring", True, "after the status is agreed"),
        Rule("resignation", "resignation", 'LGC Game protocol "Resignation"', False),
        Rule("time_forfeit", "time_forfeit", 'LGC Timing "Loss on time"', True),
        Rule("late_arrival", "forfeit", 'LGC Timing "Start"', True, "late by 30 minutes or more"),
    ),
    flag_fall="loss",
)


def _renamed(rs: Ruleset, name: str) -> Ruleset:
    return replace(rs, name=name)


#: Every rules preset in use (projections/tiebreaks/presets.py, projections/playoffs) → its
#: endings. `None` (no preset) is human chess under the FIDE Laws.
RULESETS: dict[str, Ruleset] = {
    "tcec-swiss": SWISS,
    "tcec-cup": CUP,
    "tcec-league": LEAGUES,
    "tcec-premier": _renamed(LEAGUES, "tcec-premier"),
    "tcec-superfinal": _renamed(LEAGUES, "tcec-superfinal"),
    "tcec-frd": FRD,
    "tcec-frd-final": _renamed(FRD, "tcec-frd-final"),
    "tcec-4k": FOUR_K,
    "tcec-4k-minifinal": _renamed(FOUR_K, "tcec-4k-minifinal"),
    "fide": FIDE,
    "fide-swiss": _renamed(FIDE, "fide-swiss"),
    "fide-round-robin": _renamed(FIDE, "fide-round-robin"),
    "czech-single": _renamed(FIDE, "czech-single"),
    "czech-multi": _renamed(FIDE, "czech-multi"),
    # GCT 2.5 / 3.5: the event playoffs end in Armageddon games; "gct" runs §2 (as
    # projections/playoffs/gct_event.section_for does).
    "gct": _renamed(GCT_RAPID_BLITZ, "gct"),
    "gct-rapid-blitz": GCT_RAPID_BLITZ,
    "gct-classical": GCT_CLASSICAL,
    "gct-tour-playoff": GCT_TOUR,
    "lgc": LGC,
}


def ruleset_for(preset: str | None) -> Ruleset:
    """The endings of `preset`; None is human chess (FIDE Laws). An unknown name raises
    KeyError naming the known ones."""
    if preset is None:
        return FIDE
    try:
        return RULESETS[preset]
    except KeyError:
        known = ", ".join(sorted(RULESETS))
        raise KeyError(f"no game-ending rules for preset {preset!r}; known: {known}") from None
