"""The live projection feed of the HTTP API: snapshots, Server-Sent Events, a live page.

Mounted into the API app by `services.api.app.create_app`
(`app.include_router(services.feed.routes.feed_router(app))`). The source of the projections
starts on the first feed request (see `services.feed.routes`): the embedded runner on the
SQLite log; on Kafka, the processors' output topics (`services.projection.embedded`); both
publish to the hub (`services.feed.hub`). `services.feed.patch` holds the patches of
`?patches=true` streams (the hub computes them); this package's `__init__` imports nothing,
so that the hub can import it without importing the routes.
"""
