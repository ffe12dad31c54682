"""Calibration: floor choice, the logistic fit, the asset format, and the feature vector."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from kruschnexus.embed.calibration import FEATURES, Calibration
from kruschnexus.errors import ConfigError
from kruschnexus.eval.calibrate import SweepRow, choose_floor, fit_logistic, predict
from kruschnexus.retrieve.confidence import feature_values, features
from kruschnexus.retrieve.fusion import Candidate, FusionSettings, NamedSections, score


def test_choose_floor_keeps_every_answerable_and_rejects_most_negatives() -> None:
    rows = [
        SweepRow(0.40, 50, 50, 3, 10),
        SweepRow(0.45, 50, 50, 6, 10),
        SweepRow(0.50, 50, 50, 6, 10),
        SweepRow(0.55, 49, 50, 9, 10),
    ]
    # 0.55 loses an answerable query; 0.45 and 0.50 tie: the higher wins (it fails closed at no cost on the suite)
    assert choose_floor(rows).floor == 0.50


def test_logistic_fit_recovers_a_known_model() -> None:
    rng = np.random.default_rng(7)
    x = rng.normal(size=(4000, 2))
    true_w, true_b = np.array([2.0, -1.0]), 0.5
    p = 1 / (1 + np.exp(-(x @ true_w + true_b)))
    y = (rng.random(4000) < p).astype(np.float64)
    w, b = fit_logistic(x, y, l2=0.0)
    assert w == pytest.approx(true_w, abs=0.15) and b == pytest.approx(true_b, abs=0.15)
    assert predict(w, b, np.zeros((1, 2)))[0] == pytest.approx(1 / (1 + math.exp(-b)))


def test_calibration_asset_round_trips_and_refuses_other_features(tmp_path: Path) -> None:
    calibration = Calibration(FEATURES, tuple(0.1 * i for i in range(len(FEATURES))), -1.0, 0.5, {"suite": "x"})
    path = tmp_path / "cal.json"
    path.write_text(calibration.to_json(), encoding="utf-8")
    loaded = Calibration.load(path)
    assert loaded.floor == 0.5 and loaded.weights == pytest.approx(calibration.weights)
    values = tuple(1.0 for _ in FEATURES)
    assert loaded.confidence(values) == pytest.approx(1 / (1 + math.exp(-(-1.0 + sum(calibration.weights)))))
    with pytest.raises(ConfigError, match="refit"):
        Calibration.load(path, expected_features=("cosine",))
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match="unreadable"):
        Calibration.load(path)


def test_confidence_is_a_probability_even_for_extreme_inputs() -> None:
    calibration = Calibration(FEATURES, tuple(500.0 for _ in FEATURES), 0.0)
    assert calibration.confidence(tuple(10.0 for _ in FEATURES)) == pytest.approx(1.0)
    assert calibration.confidence(tuple(-10.0 for _ in FEATURES)) == pytest.approx(0.0)


def test_features_of_a_fused_hit() -> None:
    candidate = Candidate(
        ("d", 1, 0),
        dense_rank=1,
        cosine=0.7,
        sparse_rank=2,
        sparse_score=0.3,
        fulltext_match=True,
        section="8.22",
        section_path=("8.22",),
    )
    scored = score(candidate, FusionSettings(rrf_k=60), NamedSections(("8.22",)))
    values = features(scored, rank=2, rrf_k=60, phrase=False, named=True)
    assert len(values) == len(FEATURES)
    assert values == feature_values(0.7, 0.3, 1 / 61 + 1 / 62, True, True, False, 2, 60, True)
    assert values[FEATURES.index("named_document")] == 1.0
    assert values[FEATURES.index("rrf")] == pytest.approx(61 * (1 / 61 + 1 / 62))
    assert values[FEATURES.index("inverse_rank")] == 0.5
