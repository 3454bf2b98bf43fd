"""Composition root of the API process: `uvicorn services.api.main:app` or `arbiter serve`."""

from __future__ import annotations

from services.api.app import create_app
from services.api.logs import redact_logs
from services.commands.auth import TokenStore
from services.config import FeedSettings, Settings, open_log
from services.eventlog.base import utcnow

settings = Settings.from_env()
app = create_app(
    open_log(settings, serving=True),
    TokenStore(settings.tokens_path),
    feed=FeedSettings.from_env(),
    settings=settings,
    clock=utcnow,  # the broadcast delay's now (services/feed/delay.py)
)
app.state.feed.freeze_heap = True  # a server process: see services.projection.embedded._freeze_heap
redact_logs()  # uvicorn configured its logging before importing this module
