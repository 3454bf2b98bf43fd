"""No token in a log line: the server's loggers redact `token=` query values and anything
shaped like a token before a line is written.

A page opened with `?token=` (services/api/http.py `cookie_login`), a script that still sends
one, or a token pasted into a URL would otherwise put the secret in uvicorn's access log in
plain text ("GET /tournaments/t/live?token=arb_… HTTP/1.1" 200), readable by whoever reads the
logs. `RedactTokens` rewrites a record's message and arguments: `token=<value>` becomes
`token=***` (any query parameter named token, in any case) and an Arbiter token
(`arb_<id>_<secret>`, services/commands/auth.py) keeps its id only (`arb_<id>_***`), so a
line still says which token was used, never what it was.

`redact_logs()` adds the filter to uvicorn's loggers (access and error) and Arbiter's, and to
every handler on them and on the root logger: a logger's filter sees the records logged to it,
a handler's those that reach it from any logger. The process roots call it once logging is
configured (`arbiter serve` after uvicorn's `Config` set it up, `services/api/main.py`, which
uvicorn imports after configuring its logging).
"""

from __future__ import annotations

import logging
import re

#: `token=<value>` in a query string (the value ends at `&`, whitespace, a quote or `#`).
_QUERY_TOKEN = re.compile(r"(?i)(\btoken=)[^&\s\"'#]+")
#: An Arbiter token: `arb_<token id>_<secret>` (the secret is URL-safe base64).
_TOKEN = re.compile(r"\b(arb_[0-9a-f]+_)[A-Za-z0-9_\-]+")

#: The loggers whose records reach the server's output: uvicorn's and Arbiter's.
LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi", "arbiter", "arbiter.api")


def redact(text: str) -> str:
    """`text` with every `token=` query value and every Arbiter token's secret replaced."""
    if "arb_" not in text and "token=" not in text.lower():  # most lines: nothing to scan
        return text
    return _TOKEN.sub(r"\1***", _QUERY_TOKEN.sub(r"\1***", text))


class RedactTokens(logging.Filter):
    """Redacts tokens from a record's message and string arguments (uvicorn's access log
    passes the request's path and query as an argument); never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {
                k: redact(v) if isinstance(v, str) else v for k, v in record.args.items()
            }
        return True


def _add(target: logging.Logger | logging.Handler) -> None:
    if not any(isinstance(f, RedactTokens) for f in target.filters):
        target.addFilter(RedactTokens())


def redact_logs() -> None:
    """Add `RedactTokens` to the server's loggers and their handlers, and to the root
    logger's handlers (idempotent)."""
    root = logging.getLogger()
    for handler in root.handlers:
        _add(handler)
    for name in LOGGERS:
        logger = logging.getLogger(name)
        _add(logger)
        for handler in logger.handlers:
            _add(handler)
