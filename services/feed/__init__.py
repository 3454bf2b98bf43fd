"""The live projection feed of the HTTP API: snapshots, Server-Sent Events, a live page.

Mounted into the API app by `services.api.app.create_app` (`app.include_router(feed_router(app))`).
The source of the projections starts on the first feed request (see `services.feed.routes`):
the embedded runner on the SQLite log; on Kafka, the processors' output topics.
"""

from services.feed.routes import feed_router

__all__ = ["feed_router"]
