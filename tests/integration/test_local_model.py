"""The local model as a process runs it: what it leaves behind and what it burns between texts (each in a fresh
interpreter, with the real weights)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from kruschnexus.embed.base import Embedder, EmbedStopped, Stop
from kruschnexus.embed.local import MiniLmEmbedder


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


def test_an_embedding_given_up_stops_inside_the_models_run(embedder: Embedder) -> None:
    """A search gives up an embedding it will not use (:class:`~kruschnexus.embed.base.Stop`): before a batch it
    never starts; set during a run, the model's run ends with :class:`EmbedStopped`, and the model serves the next
    text as before."""
    stop = Stop()
    stop.set()
    with pytest.raises(EmbedStopped):
        embedder.embed(["never embedded"], stop)
    called: list[int] = []
    stop.on_set(lambda: called.append(1))
    assert called == [1], "a hook asked for after the stop runs at once"

    long = [" ".join(["the borrower shall maintain insurance on the leased premises"] * 30)] * 16
    slow = MiniLmEmbedder(threads=2, batch_size=16)  # one run of 16 texts of 256 word pieces: seconds on 2 cores
    during = Stop()
    timer = threading.Timer(0.05, during.set)
    timer.start()
    try:
        with pytest.raises(EmbedStopped, match="stopped"):
            slow.embed(long, during)
    finally:
        timer.cancel()
    assert during.is_set()
    fresh = slow.embed(["events of default"], Stop())
    assert np.allclose(fresh, embedder.embed(["events of default"]), atol=1e-5)
