"""Choose the fail-closed floor and fit the confidence calibrator from a labelled dev suite.

Floor: every query is run at each candidate floor; the chosen floor keeps every answerable query answered (as
many as the lowest floor answers) while answering ``[]`` to the most hard negatives; among equals, the highest
(it fails closed furthest at no cost on the suite, so off-topic questions outside the suite meet the highest
bar the suite allows). Calibrator: a logistic regression (Newton's method, a
small L2 penalty on the weights) from the features of every returned hit at the chosen floor
(:mod:`kruschnexus.retrieve.confidence`) to whether the hit is relevant by the suite's rule.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from kruschnexus.corpus import Corpus
from kruschnexus.embed.calibration import FEATURES, Calibration
from kruschnexus.eval.metrics import ece, is_relevant
from kruschnexus.eval.suite import Suite
from kruschnexus.retrieve.confidence import trace_features

#: Floors tried by default: 0.30, 0.325, ..., 0.70.
DEFAULT_FLOORS = tuple(round(0.30 + 0.025 * i, 3) for i in range(17))


@dataclass(frozen=True)
class SweepRow:
    """How one floor does on the suite."""

    floor: float
    answerable_answered: int
    answerable: int
    negatives_abstained: int
    negatives: int


def sweep_floor(
    corpus: Corpus,
    suite: Suite,
    floors: Sequence[float] = DEFAULT_FLOORS,
    k: int = 5,
    tick: Callable[[], None] | None = None,
) -> list[SweepRow]:
    """Run the suite at each floor and count answered answerable queries and abstained hard negatives."""
    rows = []
    for floor in floors:
        answered = abstained = 0
        for query in suite.queries:
            hits = corpus.run(query.query, k, floor=floor).hits
            if query.is_negative:
                abstained += not hits
            else:
                answered += bool(hits)
        negatives = sum(1 for q in suite.queries if q.is_negative)
        rows.append(SweepRow(floor, answered, len(suite.queries) - negatives, abstained, negatives))
        if tick is not None:
            tick()
    return rows


def choose_floor(rows: Sequence[SweepRow]) -> SweepRow:
    """The floor that answers as many answerable queries as any floor and rejects the most negatives; among equals
    the highest, which fails closed furthest at no cost on the suite (off-topic questions outside it)."""
    if not rows:
        raise ValueError("no sweep rows")
    most_answered = max(r.answerable_answered for r in rows)
    keeping = [r for r in rows if r.answerable_answered == most_answered]
    best = max(r.negatives_abstained for r in keeping)
    return max((r for r in keeping if r.negatives_abstained == best), key=lambda r: r.floor)


@dataclass(frozen=True)
class Samples:
    """Feature rows of returned hits, whether each was relevant, and which query it came from."""

    x: npt.NDArray[np.float64]
    y: npt.NDArray[np.float64]
    query: npt.NDArray[np.int64]


def collect(corpus: Corpus, suite: Suite, floor: float, k: int = 5) -> Samples:
    """Features and relevance of every hit the suite's queries return at ``floor``."""
    xs: list[tuple[float, ...]] = []
    ys: list[float] = []
    owners: list[int] = []
    rrf_k = corpus.fusion_settings().rrf_k
    for index, query in enumerate(suite.queries):
        outcome = corpus.run(query.query, k, floor=floor)
        admitted = [c for c in outcome.trace.candidates if c.admitted][: len(outcome.hits)]
        for rank, (hit, candidate) in enumerate(zip(outcome.hits, admitted, strict=True), start=1):
            xs.append(trace_features(candidate, rank, rrf_k))
            ys.append(1.0 if is_relevant(hit.source, hit.page_number, hit.text, query) else 0.0)
            owners.append(index)
    return Samples(
        np.asarray(xs, dtype=np.float64).reshape(-1, len(FEATURES)),
        np.asarray(ys, dtype=np.float64),
        np.asarray(owners, dtype=np.int64),
    )


def fit_logistic(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], l2: float = 0.1, iterations: int = 100
) -> tuple[npt.NDArray[np.float64], float]:
    """Weights and bias of an L2-penalised logistic regression (Newton's method; the bias is not penalised)."""
    if len(y) == 0:
        raise ValueError("no samples to fit")
    design = np.hstack([x, np.ones((len(y), 1))])
    theta = np.zeros(design.shape[1])
    penalty = np.full(design.shape[1], l2)
    penalty[-1] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(design @ theta, -30, 30)))
        gradient = design.T @ (p - y) + penalty * theta
        hessian = (design.T * (p * (1 - p))) @ design + np.diag(penalty) + 1e-9 * np.eye(design.shape[1])
        step = np.linalg.solve(hessian, gradient)
        theta -= step
        if float(np.max(np.abs(step))) < 1e-8:
            break
    return theta[:-1], float(theta[-1])


def predict(weights: npt.NDArray[np.float64], bias: float, x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Calibrated probabilities for feature rows."""
    out: npt.NDArray[np.float64] = 1.0 / (1.0 + np.exp(-np.clip(x @ weights + bias, -30, 30)))
    return out


def cross_validated_ece(samples: Samples, folds: int = 2) -> float:
    """ECE of predictions made by models fitted on the other folds (queries split by index)."""
    predictions = np.zeros(len(samples.y))
    for fold in range(folds):
        held = samples.query % folds == fold
        if held.all() or not held.any():
            continue
        w, b = fit_logistic(samples.x[~held], samples.y[~held])
        predictions[held] = predict(w, b, samples.x[held])
    return ece(predictions.tolist(), [bool(v) for v in samples.y])


def calibrate(
    samples: Samples, sweep: Sequence[SweepRow], floor: float, suite: Suite, model_id: str
) -> tuple[Calibration, float, float]:
    """The fitted calibration (with the floor and its sweep), its in-sample ECE and its 2-fold cross-validated
    ECE."""
    weights, bias = fit_logistic(samples.x, samples.y)
    fitted = predict(weights, bias, samples.x)
    in_sample = ece(fitted.tolist(), [bool(v) for v in samples.y])
    cv = cross_validated_ece(samples)
    calibration = Calibration(
        features=FEATURES,
        weights=tuple(float(w) for w in weights),
        bias=bias,
        floor=floor,
        fitted_on={
            "model": model_id,
            "suite": suite.path.name,
            "queries": len(suite.queries),
            "hits": len(samples.y),
            "relevant_hits": int(samples.y.sum()),
            "ece_in_sample": round(in_sample, 4),
            "ece_2fold": round(cv, 4),
            "floor_sweep": [
                {
                    "floor": r.floor,
                    "answerable_answered": r.answerable_answered,
                    "answerable": r.answerable,
                    "negatives_abstained": r.negatives_abstained,
                    "negatives": r.negatives,
                }
                for r in sweep
            ],
        },
    )
    return calibration, in_sample, cv
