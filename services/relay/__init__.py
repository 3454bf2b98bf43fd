"""The relay (`arbiter relay T --source URL|FILE`, `POST /tournaments/{id}/relay`): a live
source's games followed into a tournament as they are played (issue 25 item 2).

- `relay.py`: one poll (`Relay.poll(text)`): games placed and brought up to date through the
  PGN import's own placing and syncing (services/interchange/pgn/match.py, sync.py), each
  game on its own (a failing game held, the others go on), idempotent (event ids from the
  tournament, the game and the ply);
- `sources.py`: a file, an HTTP PGN (ETag), DGT LiveChess Cloud's JSON;
- `follow.py`: the polling loop, with exponential back-off on a failing source."""

from services.relay.follow import Backoff, follow, poll_once
from services.relay.relay import GameOutcome, PollReport, Relay
from services.relay.sources import DgtSource, FileSource, HttpSource, SourceError, open_source

__all__ = [
    "Backoff",
    "DgtSource",
    "FileSource",
    "GameOutcome",
    "HttpSource",
    "PollReport",
    "Relay",
    "SourceError",
    "follow",
    "open_source",
    "poll_once",
]
