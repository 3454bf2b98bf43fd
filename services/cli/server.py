"""`arbiter serve` and `arbiter token create|list|revoke`: the HTTP API (services/api) and the
tokens it accepts (services/commands/auth.py, stored hashed)."""

from __future__ import annotations

import json
import uuid
from typing import Annotated

import typer

from services.cli.common import ROLE_NAMES, Backend, Db, add_group, fail, settings
from services.cli.render import err, out


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    backend: Backend = None,
    db: Db = None,
    role: Annotated[
        str,
        typer.Option(
            help="api: every route, the log's writer; feed: a feed process (the reads and the"
            " live feed only, from the projection topics on Kafka; writes answer 405). Run"
            " several feed processes to carry one broadcast past one machine"
            " (deploy/README.md)",
        ),
    ] = "api",
) -> None:
    """Run the HTTP API (and sign checkpoints of moved heads on a schedule), or, with
    `--role feed`, a feed process."""
    import uvicorn

    from services.api.app import create_app
    from services.api.logs import redact_logs
    from services.api.roles import ROLES, FeedOnly
    from services.audit.checkpoints import attach_scheduler
    from services.commands.auth import TokenStore
    from services.config import FeedSettings, checkpoint_every, open_log
    from services.eventlog.base import utcnow

    if role not in ROLES:
        fail("serve.role", "--role", f"one of {', '.join(ROLES)}, not {role!r}")
    feed_only = role == "feed"
    cfg = settings(backend, db)
    api = create_app(
        # A feed process reads the log (the live page's title, a game's record, the delayed
        # view) and never writes it: it does not join the writers' group.
        open_log(cfg, serving=not feed_only),
        TokenStore(cfg.tokens_path),
        feed=FeedSettings.from_env(),
        settings=cfg,
        clock=utcnow,  # the broadcast delay's now (services/feed/delay.py)
    )
    # A server process: see services.projection.embedded._freeze_heap.
    api.state.feed.freeze_heap = True
    # Signs moved heads every ARBITER_CHECKPOINT_EVERY s (0: off); a feed process never signs.
    attach_scheduler(api, 0 if feed_only else checkpoint_every())
    if feed_only:
        api.add_middleware(FeedOnly)  # services/api/roles.py
    config = uvicorn.Config(api, host=host, port=port)  # configures logging
    redact_logs()  # no token in a log line (services/api/logs.py)
    server = uvicorn.Server(config)
    server.run()
    if not server.started:  # as uvicorn.run: the port was taken, the app failed to start
        raise typer.Exit(1)


def token_create(
    role: Annotated[str, typer.Option(help=f"one of {', '.join(ROLE_NAMES)}")],
    subject: Annotated[str | None, typer.Option(help="who holds it")] = None,
    tournament: Annotated[
        list[str] | None, typer.Option("--tournament", "-t", help="scope (repeatable)")
    ] = None,
) -> None:
    """Create a token; it is shown once and stored only as a hash."""
    from services.commands.auth import TokenStore

    store = TokenStore(settings().tokens_path)
    try:
        token, who = store.create(role, subject or f"{role}-{uuid.uuid4().hex[:6]}", tournament)
    except ValueError as exc:
        fail("token.invalid", "--role/--tournament", str(exc))
    err.print(f"created token {who.token_id} for {who.subject} ({who.role}); shown once:")
    out.print(token)


def token_list() -> None:
    """List the tokens (id, role, subject, tournaments, created, revoked; never the secret)."""
    from services.commands.auth import TokenStore

    for row in TokenStore(settings().tokens_path).list():
        out.print(json.dumps(row))


def token_revoke(token_id: str) -> None:
    """Revoke a token by its id: it is refused from then on, and open streams using it end."""
    from services.commands.auth import TokenStore

    if not TokenStore(settings().tokens_path).revoke(token_id):
        fail("token.unknown", "token_id", f"no active token {token_id}")


def register(app: typer.Typer) -> None:
    """Add `serve` and the `token` group to the `arbiter` app."""
    app.command()(serve)
    add_group(
        app,
        "token",
        "API tokens (stored hashed).",
        {"create": token_create, "list": token_list, "revoke": token_revoke},
    )
