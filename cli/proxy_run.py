"""``toolpatch proxy``: ``fix``'s settings, an address to listen on, and the log.

The proxy repairs as ``fix`` does, so its rules come from the same place: `Settings.of` for the
``fix`` command (configuration found from the current folder, ``--config``, ``--select``,
``--repair``, ...), checked once. The forwarding itself is `toolpatch.integrations.proxy` (the
``proxy`` extra: aiohttp); this module binds the socket, says where it listens, writes
a line for each request that was not clean and runs the server until it is stopped
(docs/proxy.md).
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import socket
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import typer

from patchcore import MissingExtra, extra_module
from toolpatch.integrations.redaction import redacted

from .console import visible
from .exit_codes import ExitCode
from .options import LogFormat
from .settings import Command, CommandLine, Settings

if TYPE_CHECKING:
    from toolpatch.integrations.proxy import Exchange

#: Where the proxy listens unless ``--listen`` says otherwise: loopback only.
DEFAULT_LISTEN = "127.0.0.1:8787"
#: How long the requests in flight (a stream, say) may go on once the proxy is told to stop.
SHUTDOWN_SECONDS = 10.0

#: How each verdict reads in the text log (`toolpatch.integrations.proxy.Verdict`'s values).
_SAID = {
    "repaired": "repaired",
    "found": "found, forwarded unchanged",
    "not-json": "forwarded unchanged: not JSON",
    "too-large": "forwarded unchanged: too large",
    "unknown-shape": "forwarded unchanged: no history toolpatch reads",
    "failed": "forwarded unchanged: toolpatch failed on it (a bug; please report it)",
    "unreachable": "the upstream could not be reached: answered 502",
}


def serve(
    given: CommandLine,
    *,
    upstream: str,
    listen: str | None,
    allow_remote: bool,
    check_only: bool,
    log_format: LogFormat,
) -> int:
    """Run the proxy until it is stopped: repairing as ``fix`` with the rule options ``given``
    would, forwarding to ``upstream``, listening where ``listen`` says.

    Raises:
        typer.BadParameter: ``--upstream`` or ``--listen`` cannot be used, or a rule option is
            refused (as ``fix`` refuses it).
    """
    # The rules, configuration and record limit are fix's: the proxy repairs as fix does.
    settings = Settings.of(Command.FIX, given)
    options = settings.rules.options_for()
    upstream = _upstream(upstream)
    host, port = _address(listen or DEFAULT_LISTEN, remote=allow_remote)
    try:
        web = extra_module("aiohttp.web", extra="proxy", part="toolpatch proxy")
        from toolpatch.integrations.proxy import Proxy
    except MissingExtra as exc:
        sys.stderr.write(f"toolpatch: error: {exc}\n")
        return int(ExitCode.ERROR)
    log = _json_line if log_format is LogFormat.JSON else _text_line
    app = Proxy(upstream, options=options, check_only=check_only, report=log)
    listening = _bound(host, port)
    bound_host, bound_port = listening.getsockname()[:2]
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    sys.stderr.write(
        f"toolpatch proxy: listening on http://{shown}:{bound_port}, forwarding to "
        f"{visible(redacted(upstream))}\n"
    )
    sys.stderr.flush()
    # Ctrl-C and SIGTERM stop it: requests in flight get SHUTDOWN_SECONDS to finish.
    web.run_app(
        app.application(),
        sock=listening,
        print=None,
        access_log=None,  # it would print query strings, where a Gemini key can travel
        shutdown_timeout=SHUTDOWN_SECONDS,
    )
    sys.stderr.write("toolpatch proxy: stopped\n")
    return int(ExitCode.OK)


def _upstream(url: str) -> str:
    """``--upstream``'s URL, checked: http or https, a host, no query."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query:
        msg = f"{visible(redacted(url))}: not an http:// or https:// base URL"
        raise typer.BadParameter(msg, param_hint="--upstream")
    return url


def _address(given: str, *, remote: bool) -> tuple[str, int]:
    """``--listen``'s ``HOST:PORT`` (``[::1]:PORT`` for IPv6); a host that is not loopback
    only with ``--allow-remote``."""
    host, colon, port = given.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not colon or not host or not port.isdigit() or int(port) > 65535:
        msg = f"{visible(given)}: expected HOST:PORT, such as 127.0.0.1:8787"
        raise typer.BadParameter(msg, param_hint="--listen")
    if not remote and not _is_loopback(host):
        msg = (
            f"{visible(host)} is not a loopback address: anyone who reaches it could send "
            "requests through this proxy; give --allow-remote to listen there anyway"
        )
        raise typer.BadParameter(msg, param_hint="--listen")
    return host, int(port)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: only what it resolves to would tell
        return False


def _bound(host: str, port: int) -> socket.socket:
    """A listening socket at ``host:port``: bound here, so that the port (0: a free one) is
    known before the server starts, and connections wait in its backlog meanwhile.

    Raises:
        typer.BadParameter: The address cannot be bound (in use, not this machine's).
    """
    try:
        family, kind, protocol, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM
        )[0]
        listening = socket.socket(family, kind, protocol)
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listening.bind(address)
        listening.listen(2048)
    except OSError as exc:
        msg = f"{visible(host)}:{port}: {exc.strerror or exc}"
        raise typer.BadParameter(msg, param_hint="--listen") from None
    return listening


def _counts(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{count} {code}" for code, count in sorted(counts.items()))


def _text_line(exchange: Exchange) -> None:
    """The text log's line for ``exchange``, on stderr."""
    said = _SAID[exchange.verdict.value]
    parts = [f"{exchange.method} {visible(exchange.path)}: {said}"]
    if exchange.fixed:
        parts.append(f" ({_counts(exchange.fixed)})")
    if exchange.found:
        left = "" if exchange.verdict.value == "found" else "left as they are: "
        parts.append(f" ({left}{_counts(exchange.found)})")
    if exchange.reason:
        parts.append(f" ({exchange.reason})")
    sys.stderr.write(f"toolpatch proxy: {''.join(parts)}\n")
    sys.stderr.flush()


def _json_line(exchange: Exchange) -> None:
    """The JSON log's line for ``exchange``, on stdout."""
    record = {
        "time": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds"),
        "method": exchange.method,
        "path": exchange.path,
        "outcome": exchange.verdict.value,
        "fixed": dict(exchange.fixed),
        "found": dict(exchange.found),
        "reason": exchange.reason,
    }
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()
