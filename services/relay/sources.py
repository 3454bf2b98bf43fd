"""Where a relay reads its games (`open_source`): a file (a live PGN another program
rewrites), an HTTP URL of a multi-game PGN (as lichess broadcasts and DGT LiveChess publish
it), or DGT LiveChess Cloud's JSON (a round's `index.json` with its pairings, each board's
`game-N.json` with its moves: `DgtSource` writes them as the PGN the relay reads). Each
`read()` gives the source's text now, None when it has not changed (HTTP 304 on its ETag),
or raises `SourceError` (the relay backs off: services/relay/follow.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Protocol

import httpx


class SourceError(Exception):
    """The source could not be read this time (a network error, an HTTP error status, a
    missing file, JSON that is not DGT's)."""


class Source(Protocol):
    name: str

    def read(self) -> str | None: ...


class FileSource:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.name = self.path.name

    def read(self) -> str | None:
        try:
            data = self.path.read_bytes()
        except OSError as exc:
            raise SourceError(f"{self.path}: {exc.strerror or exc}") from None
        from services.interchange.pgn.parse import decode

        return decode(data)


class HttpSource:
    """A PGN served over HTTP, read with `If-None-Match` (an unchanged source costs a 304)."""

    def __init__(self, url: str, client: httpx.Client | None = None, timeout: float = 10.0):
        self.url = self.name = url
        self.client = client if client is not None else httpx.Client(timeout=timeout)
        self._etag: str | None = None
        self._text: str | None = None

    def get(self, url: str, conditional: bool = False) -> httpx.Response:
        headers = {"If-None-Match": self._etag} if conditional and self._etag else {}
        try:
            res = self.client.get(url, headers=headers, follow_redirects=True)
        except httpx.HTTPError as exc:
            raise SourceError(f"{url}: {type(exc).__name__}: {exc}") from None
        if res.status_code == 304 and conditional:
            return res
        if res.status_code >= 400:
            raise SourceError(f"{url}: HTTP {res.status_code}")
        return res

    def read(self) -> str | None:
        res = self.get(self.url, conditional=True)
        if res.status_code == 304:
            return None
        self._etag = res.headers.get("etag")
        return res.text


def _name(player: dict[str, Any] | None) -> str:
    if not player:
        return "?"
    parts = [player.get(k) for k in ("fname", "mname", "lname")]
    return " ".join(str(p).strip() for p in parts if p and str(p).strip()) or "?"


def _clock(seconds: int) -> str:
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def dgt_pgn(index: dict[str, Any], games: list[dict[str, Any] | None], rnd: int) -> str:
    """The PGN of a DGT LiveChess round: a game per pairing (`Round` "<round>.<board>"),
    each move `SAN [seconds left[+…]]` with its clock as `[%clk]`, the game's `result` as the
    final token once it is not "*"."""
    out: list[str] = []
    for board, (pairing, game) in enumerate(zip(index.get("pairings", []), games, strict=False), 1):
        tags = {
            "Event": f"DGT round {rnd}",
            "Round": f"{rnd}.{board}",
            "Board": str(board),
            "White": _name(pairing.get("white")),
            "Black": _name(pairing.get("black")),
            "Result": "*",
        }
        moves: list[str] = []
        result = "*"
        if game is not None:
            for n, text in enumerate(game.get("moves") or []):
                parts = str(text).split()
                if not parts:
                    continue
                number = f"{n // 2 + 1}. " if n % 2 == 0 else ""
                clock = re.match(r"\d+", parts[1]) if len(parts) > 1 else None
                comment = f" {{[%clk {_clock(int(clock.group()))}]}}" if clock else ""
                moves.append(f"{number}{parts[0]}{comment}")
            result = str(game.get("result") or "*").replace("½", "1/2")
        if result not in ("1-0", "0-1", "1/2-1/2"):
            result = "*"
        head = "".join(f'[{k} "{v}"]\n' for k, v in tags.items())
        out.append(f"{head}\n{' '.join(moves)} {result}\n")
    return "\n".join(out)


class DgtSource:
    """DGT LiveChess Cloud: the URL of a round's `index.json` (…/round-3/index.json); each
    board's game read from `game-<board>.json` beside it."""

    def __init__(self, url: str, client: httpx.Client | None = None) -> None:
        self.http = HttpSource(url, client)
        self.url = self.name = url
        m = re.search(r"round-(\d+)/index\.json$", url)
        self.round = int(m.group(1)) if m else 1
        self.base = url.rsplit("/", 1)[0]

    def _json(self, url: str) -> Any:
        try:
            return json.loads(self.http.get(url).text)
        except ValueError as exc:
            raise SourceError(f"{url}: not JSON: {exc}") from None

    def read(self) -> str | None:
        index = self._json(self.url)
        if not isinstance(index, dict) or not isinstance(index.get("pairings"), list):
            raise SourceError(f"{self.url}: not a DGT round index (no pairings)")
        games = [
            self._json(f"{self.base}/game-{board}.json")
            for board in range(1, len(index["pairings"]) + 1)
        ]
        return dgt_pgn(index, games, self.round)


def open_source(spec: str, client: httpx.Client | None = None) -> Source:
    """A file path, an http(s) URL of a PGN, or a DGT round's `…/index.json` URL."""
    if re.match(r"^https?://", spec):
        if spec.endswith("index.json"):
            return DgtSource(spec, client)
        return HttpSource(spec, client)
    return FileSource(spec)
