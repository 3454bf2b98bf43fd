"""The main job: a weekend Swiss on the embedded log, run with the organiser's commands (issue
24). Each step calls the use case its `arbiter` command calls, prints that command as an
organiser would type it, then what it appended:

* `arbiter create`, `register --file` (an entry list the demo writes beside its log, read by
  `services/interchange/entries`), `bye` (a requested half-point bye, FIDE C.04.2) and
  `withdraw`: `services/commands/entries/`;
* `arbiter pair` (FIDE Dutch, the lot for the first colour recorded before round 1):
  `services/commands/pairing.py`; a second pairing before the results are in is refused;
* `arbiter results` / `result` / `correct --round` in the notations organisers type
  (`1-0 ½ 0-1 +-`): `services/commands/results.py`; a second result for a board that has one
  is refused, an admin's correction after the next round was paired is flagged (that round
  stands), a forfeit is a `+-`;
* one game played move by move (moves come from a board or an engine, not from an organiser:
  `MovePlayed` commands, `_moves`), ended by rule in the same batch by its mating move;
* the standings as `arbiter standings` prints them, with the flag, the verified hash chain and
  the projections the live feed publishes.

Deterministic (the lot's seed is given) and fast. Run with `arbiter demo`."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from events_schema import GENESIS_HASH, Actor, Command, CommandBatch, Recorded
from projections.documents import corrections_after_pairing
from projections.pairing.dutch import COLOUR_RULE
from projections.standings import fold, standings
from services.cli.render import escape, named_flags, print_standings
from services.commands import entries, pairing, results
from services.commands.service import CommandRejected, CommandService
from services.config import Settings
from services.eventlog.base import AppendResult
from services.eventlog.sqlite import SQLiteEventLog
from services.interchange.entries import parse_entries
from services.projection.projector import Projector

TID = "demo-open-2026"
#: Who acts (`ARBITER_ACTOR`, as the CLI's local operator); the correction is the chief
#: arbiter's (`--as`). Both carry the local operator's role, admin (services/cli/common.py).
ARBITER = Actor(id="Ruth Ames", role="admin")
CHIEF = Actor(id="Ode Falk", role="admin")
#: The entry list: (name, rating, title, federation), as the CSV holds it.
PLAYERS = [
    ("Ana Ortega", 2612, "GM", "ESP"),
    ("Bram de Vries", 2587, "GM", "NED"),
    ("Chen Wei", 2555, "IM", "CHN"),
    ("Dara Okafor", 2530, "IM", "NGR"),
    ("Eli Navarro", 2498, "FM", "ARG"),
    ("Fen Lindqvist", 2461, "", "SWE"),
    ("Gus Moreau", 2420, "", "FRA"),
]
RATING = {name: rating for name, rating, _, _ in PLAYERS}
ROUNDS = 4
SEED = "demo"
BYE = ("Eli", 3)  # Eli Navarro asks for a half-point bye in round 3
WITHDRAWN = 7  # start number of the player who withdraws after round 2
BYE_WORDS = {
    "pairing_allocated": "1 (pairing-allocated)",
    "half": "½ (requested)",
    "zero": "0 (requested)",
}
SCHOLARS_MATE = "e4 e5 Bc4 Nc6 Qh5 Nf6 Qxf7#"
CREATE = {
    "name": "Demo Open 2026",
    "format": "swiss",
    "preset": "fide-swiss",
    "time_control": "15+10",
}


def entries_csv() -> str:
    """The entry list the demo registers, as a spreadsheet exports it."""
    rows = ["name,rating,title,federation"]
    rows += [f"{n},{r},{t},{f}" for n, r, t, f in PLAYERS]
    return "\n".join(rows) + "\n"


def _moves(game_id: str, san: str) -> list[Command]:
    """The `MovePlayed` commands of a chess game given in SAN from the start position (what a
    board or an engine sends), each with its UCI and the decider-checked SAN."""
    import chess

    board = chess.Board()
    commands = []
    for ply, text in enumerate(san.split(), start=1):
        move = board.parse_san(text)
        payload = {
            "game_id": game_id,
            "ply": ply,
            "colour": "white" if board.turn == chess.WHITE else "black",
            "uci": move.uci(),
            "san": board.san(move),
        }
        commands.append(Command(type="MovePlayed", payload=payload))
        board.push(move)
    return commands


def _scoresheet(white: str, black: str, rnd: int) -> str:
    """What the score sheets say: the higher rated wins, but close games in even rounds are
    drawn."""
    if rnd % 2 == 0 and abs(RATING[white] - RATING[black]) < 60:
        return "½"
    return "1-0" if RATING[white] > RATING[black] else "0-1"


def _seqs(result: AppendResult | None) -> str:
    seqs = [e.seq for e in result.envelopes] if result is not None else []
    if not seqs:
        return "nothing appended"
    return f"#{seqs[0]}" if len(seqs) == 1 else f"#{seqs[0]}–{seqs[-1]}"


def run_demo(db: Path, out: Console) -> None:
    """Run the story on a new log at `db` (its entry list beside it), printing to `out`."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    db.parent.mkdir(parents=True, exist_ok=True)
    log = SQLiteEventLog(db, synchronous=Settings.from_env().sqlite_synchronous)
    try:
        demo = _Demo(db, CommandService(log), out)
        demo.entries()
        for rnd in range(1, ROUNDS + 1):
            demo.play_round(rnd)
            if rnd == 2:
                demo.correct_and_withdraw()
        demo.finish()
    finally:
        log.close()


class _Demo:
    """The story's steps; each prints the command an organiser would type (`say`), calls the
    use case that command calls, and prints what was appended (`note`)."""

    def __init__(self, db: Path, service: CommandService, out: Console) -> None:
        self.db, self.service, self.out = db, service, out
        self.csv = db.with_name(f"{db.stem}-entries.csv")
        self.slip: tuple[results.Board, str] | None = None  # round 1's wrong entry, the truth

    def say(self, *args: str | int) -> None:
        line = " ".join(_quoted(str(a)) for a in args)
        self.out.print(f"[bold cyan]$ arbiter {escape(line)}[/bold cyan]", soft_wrap=True)

    def note(self, text: str) -> None:
        self.out.print(f"  {text}", soft_wrap=True)

    def refused(self, step: Callable[[], object]) -> None:
        try:
            step()
        except CommandRejected as exc:
            self.note(f"[red]refused[/red] {exc.rule} ({exc.field}): {escape(exc.message)}")
        else:
            raise AssertionError("the demo expected this step to be refused")

    def entries(self) -> None:
        """Create the tournament, register the entry list, a requested bye."""
        self.csv.write_text(entries_csv(), encoding="utf-8")
        # `make demo` runs .venv/bin/arbiter: typing the commands needs the venv on the PATH.
        venv = Path(sys.argv[0]).parent / "activate" if sys.argv and sys.argv[0] else None
        activate = f"source {os.path.relpath(venv)}; " if venv and venv.is_file() else ""
        self.out.rule(
            f"[bold]Arbiter demo[/bold]: a {len(PLAYERS)}-player Swiss run with the organiser's "
            "commands"
        )
        self.out.print(
            f"event log {escape(str(self.db))} (SQLite, WAL), the entry list beside it; to type "
            "the commands yourself:",
            soft_wrap=True,
        )
        self.out.print(
            f"[dim]  {activate}export ARBITER_DB={escape(_quoted(str(self.db)))} "
            f"ARBITER_ACTOR={_quoted(ARBITER.id)}   # the person each event records[/dim]",
            soft_wrap=True,
        )
        c = CREATE
        self.say(
            "create", TID, "--name", c["name"], "--format", c["format"], "--rounds", ROUNDS,
            "--preset", c["preset"], "--time-control", c["time_control"],
        )  # fmt: skip
        created = entries.create_tournament(
            self.service,
            TID,
            ARBITER,
            name=c["name"],
            format=c["format"],
            rounds=ROUNDS,
            preset=c["preset"],
            time_control=c["time_control"],
        )
        self.note(
            f"{_seqs(created)} TournamentCreated: {c['name']}, {ROUNDS} rounds paired by FIDE "
            f"Dutch, tie-breaks of {c['preset']}, {c['time_control']}"
        )
        self.say("register", TID, "--file", str(self.csv))
        lines = entries_csv().splitlines()
        self.note(f"[dim]{escape(' | '.join(lines[:3]))} | … ({len(lines) - 1} players)[/dim]")
        done = entries.register_entries(
            self.service, TID, parse_entries(self.csv.read_bytes(), self.csv.name), ARBITER
        )
        numbered = ", ".join(f"{r.start_no} {escape(r.name)}" for r in done.new_rows())
        self.note(
            f"{_seqs(done.result)} PlayerRegistered ×{len(done.rows)}, start numbers by rating: "
            f"{numbered}"
        )
        who, rnd = BYE
        self.say("bye", TID, who, "--round", rnd, "--points", "½")
        bye = entries.request_bye(self.service, TID, who, rnd, ARBITER, points="½")
        self.note(
            f"{_seqs(bye.result)} RulingIssued: {escape(bye.player.label())} asks for a ½-point "
            f"bye in round {rnd}, before it is paired (FIDE C.04.2)"
        )

    def play_round(self, rnd: int) -> None:
        """Pair round `rnd`, play it, enter its results as the score sheets say."""
        self.out.print()
        seed = ("--seed", SEED) if rnd == 1 else ()
        self.say("pair", TID, *seed)
        paired = pairing.pair_next(
            self.service, TID, ARBITER, expected_round=rnd, seed=SEED if rnd == 1 else None
        )
        view = results.round_view(self.service, TID, rnd)
        for seq, lot in zip(paired.seqs, paired.lots, strict=False):
            what = f"{lot.purpose} ({lot.subject}): {' '.join(lot.outcome)}"
            if lot.subject.endswith("initial-colour"):
                article = COLOUR_RULE.split(" (")[0]
                what = f"{lot.outcome[0]} for the top seed in round 1 (FIDE {article}, by lot)"
            self.note(f"#{seq} LotDrawn: {what}, with its seed, before the round it decides")
        byes = "".join(f"; bye {_side(s)}: {BYE_WORDS.get(k, k)}" for s, k in view.byes)
        system = "FIDE Dutch" if paired.system == "dutch" else paired.system
        self.note(f"#{paired.seqs[-1]} RoundScheduled round {rnd} ({system}){escape(byes)}")
        for b in view.boards:
            self.note(escape(f"board {b.board}: {_side(b.white):<18} – {_side(b.black)}"))
        tokens = [_scoresheet(b.white.name, b.black.name, rnd) for b in view.boards]
        if rnd == 1:
            self.say("pair", TID)
            self.refused(lambda: pairing.pair_next(self.service, TID, ARBITER))
            self.played_on_the_board(view.boards[0])
            tokens[0] = results.SKIP  # ended by its last move
            self.slip = (view.boards[1], tokens[1])
            tokens[1] = "0-1" if tokens[1] == "1-0" else "1-0"  # typed wrong
        if rnd == ROUNDS:
            tokens[-1] = "+-"  # Black did not come
        typed = " ".join(tokens)
        self.say("results", TID, "--round", rnd, typed)
        entered = results.enter_round(self.service, TID, rnd, typed, ARBITER)
        why = {}
        if rnd == 1 and self.slip is not None:
            why[self.slip[0].board] = f" [yellow](a slip: the score sheet says {self.slip[1]})[/]"
        if rnd == ROUNDS:
            last = view.boards[-1]
            why[last.board] = f" (a forfeit: {escape(last.black.name)} did not come)"
        shown = ", ".join(
            f"board {e.board.board} {e.entered.text}{why.get(e.board.board, '')}"
            for e in entered.entries
        )
        kept = "".join(f"; board {b.board} left as it is ({b.shown})" for b in entered.skipped)
        self.note(f"{_seqs(entered.result)} GameEnded ×{len(entered.entries)}: {shown}{kept}")
        if rnd == 1:
            third = view.boards[2].board
            other = "0-1" if tokens[2] != "0-1" else "1-0"
            self.say("result", TID, "--round", rnd, third, other)
            self.refused(
                lambda: results.enter_result(self.service, TID, rnd, third, other, ARBITER)
            )

    def played_on_the_board(self, board: results.Board) -> None:
        """Board 1 of round 1, move by move from an electronic board, ended by its last move."""
        self.note(
            f"board {board.board} is played on an electronic board: {_numbered(SCHOLARS_MATE)} "
            "[dim](MovePlayed)[/dim]"
        )
        batch = CommandBatch(commands=_moves(board.game_id, SCHOLARS_MATE))
        played = self.service.handle(TID, batch, ARBITER)
        end = played.envelopes[-1].payload
        self.note(
            f"{_seqs(played)} {len(played.envelopes) - 1} moves, then GameEnded {end['result']} "
            f"{end['termination']} ({end['rule']}) in the same batch: the last move ended it"
        )

    def correct_and_withdraw(self) -> None:
        """The chief arbiter corrects round 1's slip after round 2 was paired; a player
        withdraws."""
        assert self.slip is not None
        board, truth = self.slip
        reason = f"both players signed a score sheet showing {truth}"
        self.say(
            "correct", TID, "--round", 1, board.board, truth, "--reason", reason,
            "--as", CHIEF.id,
        )  # fmt: skip
        fix = results.correct_board(self.service, TID, 1, board.board, truth, reason, CHIEF)
        self.note(
            f"#{fix.seq} ResultCorrected by {CHIEF.id} (an admin): round 1 board {board.board} "
            f"{fix.entered.text}, was {fix.old}; round 2, paired on the old result, stands and is "
            "flagged"
        )
        reason = "called home"
        self.say("withdraw", TID, WITHDRAWN, "--reason", reason)
        gone = entries.withdraw_player(self.service, TID, str(WITHDRAWN), ARBITER, reason=reason)
        self.note(
            f"{_seqs(gone.result)} PlayerWithdrew: {escape(gone.player.label())}, not paired from "
            "the next round on"
        )

    def finish(self) -> None:
        """The standings as `arbiter standings` prints them, the hash chain, the projections,
        and where to look next."""
        self.out.print()
        self.say("standings", TID)
        envs = list(self.service.log.read(TID))
        state = fold([Recorded.of(e) for e in envs])
        flags = named_flags(corrections_after_pairing(state), state)
        print_standings(TID, standings(state), self.out, flags=flags)
        prev = GENESIS_HASH
        for env in envs:
            assert env.prev_hash == prev and env.computed_hash() == env.hash, f"broken at {env.seq}"
            prev = env.hash
        # The projections the live feed and the Kafka processors publish, run in-process over
        # the embedded log (services/projection/projector.py), one message per projection.
        published = ", ".join(m.projection for m in Projector().run(envs))
        self.out.print(
            f"{len(envs)} events, hash chain verified (head {prev[:16]}…); projections "
            f"published as of seq {envs[-1].seq}: {published}",
            soft_wrap=True,
        )
        on = f"--db {_quoted(str(self.db))}"
        url = f"http://127.0.0.1:8000/tournaments/{TID}"
        for head, lines in (
            ("inspect:", [f"arbiter crosstable {TID} {on}    # or standings, players, round 4"]),
            (
                "live page:",
                [
                    f"arbiter token create --role broadcaster -t {TID}    # prints TOKEN",
                    f"arbiter serve {on}",
                    f"open {url}/live?token=TOKEN",
                ],
            ),
            (
                "console:",
                [
                    f"arbiter token create --role arbiter --subject {_quoted(ARBITER.id)} -t {TID}",
                    f"open {url}/console?token=TOKEN",
                ],
            ),
        ):
            for i, line in enumerate(lines):
                self.out.print(f"{head if i == 0 else '':<12}{escape(line)}", soft_wrap=True)


def _side(side: results.Side) -> str:
    return f"{side.name} ({side.start_no})"


_PLAIN = re.compile(r"[\w@%+=:,./½-]+")


def _quoted(arg: str) -> str:
    """`arg` as a shell reads it back: bare when plain, else in double quotes, as the README
    writes `"1-0 ½ 0-1"`."""
    if _PLAIN.fullmatch(arg):
        return arg
    return '"' + re.sub(r'(["\\$`])', r"\\\1", arg) + '"'


def _numbered(san: str) -> str:
    """`1.e4 e5 2.Bc4 Nc6`: SAN moves with their move numbers."""
    moves = san.split()
    return " ".join(f"{i // 2 + 1}.{m}" if i % 2 == 0 else m for i, m in enumerate(moves))
