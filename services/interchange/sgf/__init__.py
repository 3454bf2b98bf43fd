"""SGF import (`arbiter import sgf FILE…`) and export (`export`): Go games as one new
tournament, recorded through the command path with the contract of the PGN import
(`services/interchange/pgn/`: the shared pipeline's `ImportRefused` and `Progress`, dry run,
batching and append): all or nothing, idempotent, a progress callback, the file's result kept
beside Arbiter's and every disagreement reported. Read (`parse`), planned (`plan`), decided and
appended (`importer`), reported (`report`).

Reading (`read_sgf`, sgfmill only: `sgf_grammar.parse_sgf_collection` for one game or a
collection per file, `Sgf_game.from_coarse_game_tree`, node properties through sgfmill's
own interpretation). The main line of each game only (variations are skipped); nodes are
numbered from the root, node 0. The whole import is refused on the first problem, naming the
file, the game (in a collection), the node and the reason (`SgfError`): SGF that sgfmill
cannot parse (it names no node: the game is named), a property sgfmill cannot interpret
(a bad SZ, KM, HA, a move off the board), a game that is not Go (GM other than 1), a board
size outside 5-25, a node with both B and W, setup stones after the root, White setup
stones (AW) or points cleared (AE), a move out of turn (two B moves in a row; the first
move by the wrong side: Black first in an even game, White after handicap stones), a stone on
an occupied point, an RE that is not an SGF result, a PB/PW longer than 200 characters.

Readings (SGF → events, in this order):

- `TournamentCreated`: game "go"; name from the first EV, else the first file's name;
  format "match" when the import has exactly two players, else "mcmahon" (or `--format`);
  `board_size` from SZ (default 19; every game of one import shares it, else refused naming
  the game's root node); `komi` from the KM of the first even game that has one (handicap below 2;
  default 7.5): the decider counts handicap games with 0.5 (LGC Scoring), so a game whose KM differs
  from the komi Arbiter counts it with gets a note; `rules_preset` None (no Go preset exists
  in `projections/tiebreaks/presets.py`); `adjudication` "rules" with --adjudicate else
  "manual" (a Go ending is never decided by the preset: the count and the resumption stop
  below happen either way); `starts_on`/`ends_on` the earliest and latest DT dates (a DT
  that is not a YYYY-MM-DD date is ignored); `rounds` the number of rounds.
- `PlayerRegistered` per distinct name (PB/PW), in order of first appearance (PB before PW),
  `p001`, …; a missing name is "? (Black)" / "? (White)"; when PB and PW of one game are the
  same name (an engine playing itself: the GNU Go games) the two are "NAME (Black)" and
  "NAME (White)" (noted); `go_rank` from BR/WR read as "5k", "2d", "1p" (also "5 kyu",
  "2 dan", a trailing "?" or "*"), the first the player has; a rank that reads as none is
  ignored and noted.
- `RoundScheduled`: one round per game, in order; when every game has RO, games are grouped
  by the number RO starts with, a round that pairs a player twice split (as the PGN import
  does), and the numbers kept unless a split or a missing RO forces 1, 2, … in order. Game
  ids `g0001`, … by position in the import (files in the order given, games in file order).
- `GameStarted`: `handicap` from HA (AB alone: its number of stones); the handicap stones must
  be the fixed points (`projections/go/handicap.py`) — AB stones elsewhere are refused:
  "free handicap placement is not supported" (the decider knows fixed points only); HA without
  AB: the fixed points (noted). `source`: the file, the game's index in it, `result` RE in
  PGN style ("1-0" White won, "0-1" Black won, "1/2-1/2" jigo, "*" none), `termination` the
  words ("resignation", "time forfeit", "forfeit", "counting", "win", "void", "unknown"), `details`
  the RE verbatim, `plies` the SGF's moves.
- `MovePlayed` per B/W node: `point` the GTP vertex ("D4"), "pass" for sgfmill's None (B[]
  and B[tt] on boards up to 19). Where the SGF plays on after play paused (a Black pass,
  then a White pass) a `GoStatusDisputed` is recorded before the next move (LGC Timing
  "Ending the game" 6: a dispute resumes play, Black first); when both pass at the start of a
  resumption the decider ends the game (the SGF's later moves are not recorded: reported).
- the ending, from RE: "+R"/"+Resign" `GameEnded` resignation, "+T"/"+Time" time_forfeit,
  "+F"/"+Forfeit" forfeit, "B+"/"W+" without a reason "other", each with rule "arena:
  RE[…]" and the winner RE names; a count ("B+3.5", "W+0.5", "0"/"Jigo"/"Draw"): when the
  moves end with play paused, a `GoStatusAgreed` with the dead stones the last node marks
  (white stones in TB, black stones in TW; none without them) and the decider counts (LGC
  Scoring) and ends the game; when play had not paused, or the decider refuses the count (a
  dame unfilled, dead stones that are not whole groups), the SGF's result is recorded as a
  `GameEnded` "counting" with rule "arena: RE[…]" and the game is reported as a
  disagreement. "Void", "?" or no RE: no ending.

Disagreements (`projections.games.disagreement`: another result, another ply, an ending by
rule the RE does not name; and here: a count with another margin than RE's, a count Arbiter
could not make) are in the report of every game and listed in its summary, never hidden. RU
is not a ruleset Arbiter applies: Arbiter counts by the LGC rules (territory and prisoners,
pass stones included), so a game played under other rules gets a note.

All or nothing, idempotent: every file is read in full first; then every command is decided
against an in-memory log (`DryRun`), and only then appended in batches chained by
`expected_seq` within the limits (`services/interchange/pipeline.py`), as the PGN import
does. Every event id is derived from the tournament id, the digest of the files (names and
bytes, in order), the options and the command's place (`game:g0003:move:41`), so importing
the same files again appends nothing and an import cut short is completed by running it
again.
"""

from __future__ import annotations

from services.interchange.sgf.importer import digest_of, import_sgf
from services.interchange.sgf.parse import (
    SgfError,
    SgfGame,
    SgfMove,
    SgfResult,
    margin_text,
    read_all,
    read_rank,
    read_result,
    read_sgf,
)
from services.interchange.sgf.plan import SgfPlan, plan
from services.interchange.sgf.report import SgfGameReport, SgfImportReport

__all__ = [
    "SgfError",
    "SgfGame",
    "SgfGameReport",
    "SgfImportReport",
    "SgfMove",
    "SgfPlan",
    "SgfResult",
    "digest_of",
    "import_sgf",
    "margin_text",
    "plan",
    "read_all",
    "read_rank",
    "read_result",
    "read_sgf",
]
