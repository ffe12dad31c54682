"""``nexus serve [--host 127.0.0.1] [--port 8000]``: the REST API under /v1 and the web page at /."""

from __future__ import annotations

import ipaddress
import signal
import socket
from types import FrameType

import click

from kruschnexus.cli import render
from kruschnexus.config import Settings
from kruschnexus.errors import ConfigError


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (loopback by default).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port to bind.")
@click.option("--log-level", default="info", show_default=True, type=click.Choice(["debug", "info", "warning"]))
def command(host: str, port: int, log_level: str) -> None:
    """Serve the REST API (OpenAPI at /v1/openapi.json, docs at /docs) and the web page at /.

    The database and the model are opened once at start-up and shared by every request. Bound beyond loopback
    (or with NEXUS_REQUIRE_TOKEN=1) every API request needs a token from `nexus token create`.
    """
    settings = Settings.load()
    require_token = settings.require_token or not _is_loopback(host)
    try:
        import uvicorn

        from kruschnexus.api.app import create_app
    except ImportError as exc:
        raise ConfigError(f"nexus serve needs the 'api' extra: pip install 'kruschnexus[api]' ({exc})") from exc
    from kruschnexus.hub import Hub

    with Hub(settings) as hub:
        # uvicorn re-raises the SIGTERM it caught once it has shut down; as an exception it unwinds this block, so
        # the embedded PostgreSQL is released as on Ctrl-C (the default action would kill the process first).
        signal.signal(signal.SIGTERM, _exit_on_sigterm)
        hub.start()
        guard = "API tokens required" if require_token else "no token needed on loopback"
        render.note(f"serving on http://{host}:{port}/  (API under /v1, OpenAPI at /v1/openapi.json; {guard})")
        uvicorn.run(create_app(hub, require_token=require_token), host=host, port=port, log_level=log_level)


def _exit_on_sigterm(signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, None)}
    except OSError:
        return False
    return bool(addresses) and all(ipaddress.ip_address(str(a).split("%")[0]).is_loopback for a in addresses)
