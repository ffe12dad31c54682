"""Reliability diagram (matplotlib, from the ``eval`` extra): calibrated confidence against observed accuracy."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from kruschnexus.errors import ConfigError
from kruschnexus.eval.metrics import ece, reliability_bins


def reliability_png(
    path: Path, confidences: Sequence[float], correct: Sequence[bool], title: str, bins: int = 10
) -> None:
    """Write a reliability diagram: per-bin accuracy bars against the diagonal, with hit counts and the ECE.

    Raises:
        ConfigError: matplotlib is not installed, or there is nothing to plot.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ConfigError(f"--plot needs matplotlib (pip install 'kruschnexus[eval]'): {exc}") from exc
    if not confidences:
        raise ConfigError("nothing to plot: no returned hit carries a confidence")
    table = reliability_bins(confidences, correct, bins)
    width = 1.0 / bins
    fig, ax = plt.subplots(figsize=(5.5, 5.5), dpi=120)
    centers = [b.lower + width / 2 for b in table]
    ax.bar(centers, [b.accuracy for b in table], width=width * 0.9, color="#3b6ea8", label="observed accuracy")
    ax.plot([0, 1], [0, 1], linestyle="--", color="#888888", label="perfect calibration")
    ax.scatter(
        [b.mean_confidence for b in table if b.count], [b.accuracy for b in table if b.count], color="#d9822b", zorder=3
    )
    for b, x in zip(table, centers, strict=True):
        if b.count:
            ax.annotate(str(b.count), (x, b.accuracy), ha="center", va="bottom", fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("confidence (bin)")
    ax.set_ylabel("fraction of hits relevant")
    ax.set_title(f"{title}\nECE {ece(confidences, correct, bins):.3f} over {len(confidences)} hits")
    ax.legend(loc="upper left")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
