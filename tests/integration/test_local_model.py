"""The local model as a process runs it: what it leaves behind and what it burns between texts (each in a fresh
interpreter, with the real weights)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_the_local_model_writes_nothing_in_the_home_folder(tmp_path: Path) -> None:
    """onnxruntime's telemetry (a device id and an event database under ~/.cache/Microsoft) is off."""
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"} | {"HOME": str(tmp_path)}
    code = (
        "from kruschnexus.embed.local import MiniLmEmbedder\n"
        "assert MiniLmEmbedder(threads=1).embed(['hello world']).shape == (1, 384)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert [p for p in tmp_path.rglob("*")] == [], "the model wrote into the home folder"


def test_the_local_model_burns_no_processor_between_texts() -> None:
    """onnxruntime's pool threads spin-wait after each run by default: about 28 ms of a core after every text, which
    a search (some 14 ms at 10^5 spans on 2 cores) then shares with PostgreSQL. The pool sleeps instead."""
    code = (
        "import time\n"
        "from kruschnexus.embed.local import MiniLmEmbedder\n"
        "model = MiniLmEmbedder(threads=2)\n"
        "model.embed(['warm up'])\n"
        "spent = []\n"
        "for _ in range(3):\n"
        "    model.embed(['events of default under the credit agreement'])\n"
        "    start = time.process_time()\n"
        "    time.sleep(0.2)\n"
        "    spent.append(time.process_time() - start)\n"
        "print(max(spent))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    idle = float(done.stdout.strip().splitlines()[-1])
    assert idle < 0.005, f"{idle * 1000:.1f} ms of processor time spent idle after a text"
