"""What one command costs from the shell: ``nexus search`` in a fresh process, beside the interpreter alone and the
command line's imports, run by run in turn.

Usage (from the repository root; the workspace must be ingested under NEXUS_HOME)::

    NEXUS_HOME=/tmp/nxhome python bench/cli.py --workspace corpus --repeat 10
    NEXUS_HOME=/tmp/nxhome python bench/cli.py --workspace corpus --repeat 1 --json

Each run is a new process, as an agent that shells out starts one: the interpreter, the imports, the model, the
embedded server's start and stop, the search, the exit. With the embedded server (no ``NEXUS_DATABASE_URL``), the
search is also run while this script holds the server, as a running ``nexus serve`` or a second command would: the
difference is what starting and stopping it costs. The package's modules are byte-compiled first, as an install
does. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from kruschnexus.config import Settings

QUESTION = "when may the landlord terminate the lease"

#: What a process imports to run ``nexus search`` (the command line, the verb, the corpus it opens), and nothing
#: more; it leaves as ``nexus`` does (no collector's walk at exit: ``cli/app.py: main``).
IMPORTS = (
    "import click, gc\nfrom kruschnexus.cli.app import cli\ncli.get_command(click.Context(cli), 'search')\n"
    "import kruschnexus.corpus\ngc.freeze()"
)

#: The longest one command may take before the bench gives up on it.
TIMEOUT_SECONDS = 600


def commands(workspace: str, question: str) -> dict[str, list[str]]:
    """Each measured command line, by name."""
    python = sys.executable
    return {
        "python": [python, "-c", "pass"],
        "imports": [python, "-c", IMPORTS],
        "search": [python, "-m", "kruschnexus", "search", question, "--workspace", workspace, "--json"],
    }


def timed(argv: Sequence[str]) -> tuple[float, str]:
    """Milliseconds from start to exit, and what the process printed on stdout.

    Raises:
        RuntimeError: the command failed (its stderr in the message).
    """
    started = time.perf_counter()
    try:
        done = subprocess.run(list(argv), capture_output=True, text=True, check=False, timeout=TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired as exc:
        raise RuntimeError(f"{' '.join(argv[:4])} ... took more than {TIMEOUT_SECONDS} s") from exc
    elapsed = (time.perf_counter() - started) * 1000
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:4])} ... exited {done.returncode}: {done.stderr.strip()[-800:]}")
    return elapsed, done.stdout


def stats(values: Sequence[float]) -> dict[str, float]:
    """p50, mean and least of a list of milliseconds."""
    a = np.asarray(values, dtype=float)
    return {"p50_ms": float(np.percentile(a, 50)), "mean_ms": float(a.mean()), "min_ms": float(a.min())}


def compiled() -> bool:
    """Byte-compile the package's modules, as pip does when it installs one (an editable install is not, and under
    ``PYTHONDONTWRITEBYTECODE`` each run would compile every module again); whether all compiled."""
    import kruschnexus

    return bool(compileall.compile_dir(Path(kruschnexus.__file__).parent, quiet=1))


def measure(workspace: str, question: str, repeat: int) -> dict[str, Any]:
    """Run each command ``repeat`` times in turn (and the search once more while the embedded server is held, when
    the settings run one); the search must return a JSON array."""
    settings = Settings.load()
    if not compiled():
        raise RuntimeError("the package's modules did not all byte-compile")
    lines = commands(workspace, question)
    times: dict[str, list[float]] = {name: [] for name in lines}
    embedded = settings.database_url is None
    if embedded:
        times["search_server_held"] = []
    hits = 0
    for _ in range(repeat):
        for name, argv in lines.items():
            elapsed, out = timed(argv)
            times[name].append(elapsed)
            if name == "search":
                hits = len(json.loads(out))
        if embedded:
            times["search_server_held"].append(_held(lines["search"]))
    result: dict[str, Any] = {
        "workspace": workspace,
        "question": question,
        "hits": hits,
        "server": "embedded" if embedded else "external",
        "commands": {name: stats(values) for name, values in times.items()},
    }
    p50 = {name: row["p50_ms"] for name, row in result["commands"].items()}
    result["search_beyond_imports_p50_ms"] = p50["search"] - p50["imports"]
    if embedded:
        result["server_start_and_stop_p50_ms"] = p50["search"] - p50["search_server_held"]
    return result


#: A process holding the embedded server of ``NEXUS_HOME`` until its standard input closes.
HOLDER = """import sys
from kruschnexus.config import Settings
from kruschnexus.store.embedded import EmbeddedServer
settings = Settings.load()
server = EmbeddedServer(settings.pgdata, settings.pg_shared_buffers)
server.start()
print("held", flush=True)
sys.stdin.read()
server.stop()
"""


def _held(argv: Sequence[str]) -> float:
    """The search's milliseconds while another process holds the embedded server (a process of its own: this one
    may hold it already, and its handle's stop would stop the server)."""
    with subprocess.Popen(
        [sys.executable, "-c", HOLDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as holder:
        assert holder.stdin is not None and holder.stdout is not None
        if holder.stdout.readline().strip() != "held":
            holder.kill()
            raise RuntimeError(f"the process holding the embedded server exited {holder.wait()} before holding it")
        try:
            elapsed = timed(argv)[0]
        finally:
            holder.stdin.close()  # the holder lets the server go, whatever the search did
            released = holder.wait(timeout=TIMEOUT_SECONDS)
        if released != 0:
            raise RuntimeError(f"the process holding the embedded server exited {released}")
        return elapsed


def render(result: dict[str, Any]) -> str:
    """The figures as a small table."""
    lines = [
        f"nexus search {result['question']!r} --workspace {result['workspace']} ({result['hits']} hits,"
        f" {result['server']} server)",
        f"{'command':<20} {'p50 ms':>8} {'mean ms':>8} {'min ms':>8}",
    ]
    for name, row in result["commands"].items():
        lines.append(f"{name:<20} {row['p50_ms']:>8.0f} {row['mean_ms']:>8.0f} {row['min_ms']:>8.0f}")
    lines.append(f"search beyond its imports (p50): {result['search_beyond_imports_p50_ms']:.0f} ms")
    if "server_start_and_stop_p50_ms" in result:
        lines.append(f"the embedded server's start and stop (p50): {result['server_start_and_stop_p50_ms']:.0f} ms")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workspace", default="corpus", help="ingested workspace under NEXUS_HOME (default corpus)")
    parser.add_argument("--question", default=QUESTION, help=f"what to search for (default {QUESTION!r})")
    parser.add_argument("--repeat", type=int, default=10, help="runs of each command (default 10)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    report: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
        "repeat": args.repeat,
    }
    try:
        report.update(measure(args.workspace, args.question, args.repeat))
    except RuntimeError as exc:
        print(f"bench/cli.py: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
