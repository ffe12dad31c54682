"""``nexus serve [--host 127.0.0.1] [--port 8000]``: the REST API under /v1 and the web page at /."""

from __future__ import annotations

import ipaddress
import socket

import click

from kruschnexus.cli import render
from kruschnexus.config import Settings
from kruschnexus.errors import ConfigError


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (loopback by default).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port to bind.")
@click.option(
    "--allow-remote",
    is_flag=True,
    help="Allow a non-loopback --host. Every workspace is then readable by anyone who can reach the port.",
)
@click.option("--log-level", default="info", show_default=True, type=click.Choice(["debug", "info", "warning"]))
def command(host: str, port: int, allow_remote: bool, log_level: str) -> None:
    """Serve the REST API (OpenAPI at /v1/openapi.json, docs at /docs) and the web page at /.

    The database and the model are opened once at start-up and shared by every request.
    """
    if not _is_loopback(host) and not allow_remote:
        raise ConfigError(
            f"--host {host} is not a loopback address: pass --allow-remote to expose every workspace on it"
        )
    try:
        import uvicorn

        from kruschnexus.api.app import create_app
    except ImportError as exc:
        raise ConfigError(f"nexus serve needs the 'api' extra: pip install 'kruschnexus[api]' ({exc})") from exc
    from kruschnexus.hub import Hub

    with Hub(Settings.load()) as hub:
        hub.start()
        render.note(f"serving on http://{host}:{port}/  (API under /v1, OpenAPI at /v1/openapi.json)")
        uvicorn.run(create_app(hub), host=host, port=port, log_level=log_level)


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
