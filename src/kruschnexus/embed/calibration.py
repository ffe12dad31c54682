"""A model's calibration: the logistic map from a hit's features to the probability that it is relevant.

Fitted per embedding model on a labelled dev suite (``scripts/calibrate.py``) and shipped beside the model as a
small JSON asset, together with the fail-closed floor chosen on the same suite. Features are computed in one
place, :func:`kruschnexus.retrieve.confidence.features`; their names are stored with the weights, so an asset
fitted for another feature list is refused instead of silently misread.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kruschnexus.errors import ConfigError

#: The features this version computes for a hit, in order (``kruschnexus.retrieve.confidence.features``).
FEATURES = (
    "cosine",
    "sparse_score",
    "rrf",
    "section_match",
    "fulltext_match",
    "phrase_match",
    "inverse_rank",
    "named_document",
)


@dataclass(frozen=True)
class Calibration:
    """``confidence = 1 / (1 + exp(-(bias + Σ weight_i * feature_i)))``.

    Attributes:
        features: names of the features, in the order of ``weights``.
        weights / bias: the fitted logistic regression.
        floor: the fail-closed cosine floor chosen on the same suite, or ``None`` to keep the model's default.
        fitted_on: what it was fitted on (suite, counts, ECE), for people.
    """

    features: tuple[str, ...]
    weights: tuple[float, ...]
    bias: float
    floor: float | None = None
    fitted_on: Mapping[str, Any] = field(default_factory=dict)

    def confidence(self, values: Sequence[float]) -> float:
        """The calibrated probability for one hit's feature values (same order as :attr:`features`)."""
        if len(values) != len(self.weights):
            raise ValueError(f"{len(values)} feature values for {len(self.weights)} weights")
        z = self.bias + math.fsum(w * x for w, x in zip(self.weights, values, strict=True))
        return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))

    def to_json(self) -> str:
        """The asset's text."""
        data = {
            "features": list(self.features),
            "weights": [round(w, 6) for w in self.weights],
            "bias": round(self.bias, 6),
            "floor": self.floor,
            "fitted_on": dict(self.fitted_on),
        }
        return json.dumps(data, indent=2) + "\n"

    @classmethod
    def load(cls, path: Path, expected_features: Sequence[str] = FEATURES) -> Calibration:
        """Read an asset written by :meth:`to_json`.

        Raises:
            ConfigError: the file is unreadable, malformed, or fitted for other features.
        """
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            calibration = cls(
                features=tuple(str(f) for f in data["features"]),
                weights=tuple(float(w) for w in data["weights"]),
                bias=float(data["bias"]),
                floor=None if data.get("floor") is None else float(data["floor"]),
                fitted_on=dict(data.get("fitted_on") or {}),
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"{path}: unreadable calibration ({exc})") from exc
        if calibration.features != tuple(expected_features) or len(calibration.weights) != len(calibration.features):
            raise ConfigError(
                f"{path}: fitted for features {list(calibration.features)}, this version computes"
                f" {list(expected_features)}; refit with scripts/calibrate.py"
            )
        return calibration
