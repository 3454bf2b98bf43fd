"""PGN import (`arbiter import pgn`): a file of chess games as one new tournament, recorded
through the command path: read (`parse`), planned (`plan`), decided and appended on the shared
pipeline (`importer`), reported (`report`).

Read (`read_pgn`): python-chess's `read_game` with a visitor that keeps the main line only
(variations are skipped), the line of every header and move, and refuses the whole file on the
first problem with its line and reason (`PgnError`: an illegal or ambiguous move, a bad FEN, an
unsupported variant, a bad `Result`, a `Result` tag that contradicts the movetext's final
token, a tag given twice, a move after the final token, a player against themself, no games);
a file cut inside a move or its comment is the game up to its last complete move. Variant tags
Chess960, Chess 960, Fischerandom, FRC, DFRC, Freestyle read as Chess960 boards (the start from
the `FEN` header); Standard / From Position as standard chess. Move comments by dialect
(`projections.endings.pgn_comments.parse_comment`): TCEC `{d=…, mt=…, tl=…, wv=…}`,
cutechess / fastchess `{+0.35/20 1.2s}` (the mover's view), lichess `[%eval …] [%clk …]
[%emt …]`.

The mapping, PGN → events (in this order):

- `TournamentCreated`: name from the first `Event` (else the file name), `format` from the
  headers (two players: match; "Swiss", "Cup", "League"/"Premier"/"Division" in the event
  name; else a round robin when every pair met, else swiss) unless given, `rules_preset`
  from --rules, `adjudication` "rules" with --adjudicate else "manual", `rounds`, and the
  `TimeControl` headers of the form `base[+increment]` (seconds) as time controls;
- `PlayerRegistered` per distinct name, in order of first appearance (`p001`, …): `kind`
  engine for engine games (a TCEC site or event, engine comments, `WhiteType "program"`,
  a BOT title), `rating` from `WhiteElo`/`BlackElo`, `title`;
- `RoundScheduled` before the first game of each round: the round is the number before the
  first dot of `Round` ("3.2" → 3). A round that pairs a player twice (a match written as
  "1.1" … "1.8", a league round of game pairs) is split into as many rounds as it needs, each
  game in the first that has neither player; then every round is renumbered 1, 2, … in order
  (so are files without round numbers); otherwise the file's numbers stay. Game ids `g0001`
  … by position in the file;
- `GameStarted` with `fen` for a non-standard (or Chess960) start and `source` (file name,
  index in the file, `Result`, `Termination`, `TerminationDetails` — else the notes of the
  last move comment, where cutechess writes "White mates");
- `MovePlayed` per main-line move: `uci`, `eval_cp`/`mate_in` in White's view, `depth`,
  `nodes`, `move_time_ms` (TCEC `mt`, cutechess's time, lichess `%emt`: the source's, never
  derived), `clock_ms` (TCEC `tl`, lichess `%clk`; else derived from the time control and the
  move time as the arena counts them, cutechess-cli: clock − move time + increment);
- the ending. With --adjudicate (adjudication "rules") the decider ends the game from its
  moves (the move and its `GameEnded` in one batch); moves the PGN has after that ending are
  not recorded (the decider refuses them) and the disagreement is reported. When the moves
  run out without an ending by rule, the PGN's ending is recorded as the source says:
  a disconnect or crash is `EngineCrashed` (the side named, else the loser) and a `GameEnded`
  by the preset's crash rule (`crash_ending`: "crashes are counted as losses"; without one,
  or without --adjudicate, the PGN's result with rule "arena: <words>"); a resignation, an
  agreed draw, a loss on time, a forfeit (events under every preset) and a claim the preset
  does not decide itself (FIDE 9.2, 9.3: three-fold, fifty moves) a `GameEnded` with that
  termination and rule "arena: <words>"; anything else (an adjudication: the old "TCEC win
  rule", "SyzygyTB" — the decider opens no tables —, an older draw rule, or an ending the
  rules should have reached) an `AdjudicationIssued` with rule "arena: <words>", the PGN's
  result and the headers as basis (the decider adds its `GameEnded`, termination
  "adjudication"). Without --adjudicate the same, except that mate, stalemate, repetition,
  fifty moves and dead positions are `GameEnded` with their termination (rule "arena:
  <words>"): nothing is decided by rule. A game ends only where its moves say it does: its result is
  the movetext's final token (`1-0`, `0-1`, `1/2-1/2`), and a game without one (or with `*`,
  a live file's or a file cut in mid-game, whatever its `Result` tag says) is in progress: no
  ending is recorded, the report lists it, and a tag that named a result is reported as a
  disagreement. A result the ending it names cannot give (a 1-0 whose final position is
  stalemate, a draw by "White mates": refused by the decider, rules/consistency.py) is
  recorded with termination "other" and reported as a disagreement.

Disagreements (`projections.games.disagreement`: another result, another ply, another
termination, or an ending the rules decide from the moves that they did not reach) are in the
report of every game, never hidden.

All or nothing, idempotent: the file is read in full first (streamed, game by game, keeping
the plan without the moves: `importer`'s docstring); then every command is decided
against an in-memory log (a dry run that also finds where the rules end each game), and only
then appended to the real log in batches within the limits (events and bytes per batch,
`events_schema/limits.py`), chained by `expected_seq`. Every command's event id is derived
from the tournament id, the file's digest, the options and the command's place (`game:3:move:
41`), so importing the same file again appends nothing, and an import cut short is completed
by running it again.
"""

from __future__ import annotations

from services.interchange.pgn.importer import import_pgn
from services.interchange.pgn.parse import PgnError, PgnGame, PgnMove, decode, read_pgn
from services.interchange.pgn.plan import Plan, plan, time_control_of
from services.interchange.pgn.report import GameReport, ImportReport

__all__ = [
    "GameReport",
    "ImportReport",
    "PgnError",
    "PgnGame",
    "PgnMove",
    "Plan",
    "decode",
    "import_pgn",
    "plan",
    "read_pgn",
    "time_control_of",
]
