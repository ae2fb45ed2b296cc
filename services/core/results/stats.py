"""The statistics behind every figure on the board: Wilson intervals for rates, Newcombe's
interval for a paired difference, the exact McNemar test, pass@k and pass^k."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from math import comb, sqrt

from services.core.models.board import PairedView, RateView
from services.core.models.run import Record, Repeats

Z95 = 1.959963984540054  # the standard normal's 97.5th percentile
SIGNIFICANT = 0.05  # a paired difference with McNemar's p below this is called real


@dataclass(frozen=True)
class Rate:
    """`k` of `n` with its Wilson 95% interval; `value` None when n is 0."""

    k: int
    n: int
    low: float
    high: float

    @property
    def value(self) -> float | None:
        return self.k / self.n if self.n else None

    def view(self) -> RateView:
        value = self.value
        return RateView(
            value=None if value is None else round(value, 4),
            k=self.k,
            n=self.n,
            low=round(self.low, 4),
            high=round(self.high, 4),
        )


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for the proportion k/n; (0, 1) when n is 0."""
    if not 0 <= k <= n:
        raise ValueError(f"expected 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(k: int, n: int) -> Rate:
    low, high = wilson(k, n)
    return Rate(k, n, low, high)


def share(records: list[Record], test: Callable[[Record], bool]) -> RateView:
    """Of `records`, those that pass `test`, with the interval."""
    return rate(sum(1 for r in records if test(r)), len(records)).view()


@dataclass(frozen=True)
class Paired:
    """Two results on the same items: `a_only` items pass in A and fail in B, `b_only` the
    reverse. `delta` is B's rate minus A's, with Newcombe's 95% interval; `p` is McNemar's
    exact two-sided p-value."""

    both: int
    a_only: int
    b_only: int
    neither: int
    delta: float | None
    low: float
    high: float
    p: float

    @property
    def n(self) -> int:
        return self.both + self.a_only + self.b_only + self.neither

    @property
    def significant(self) -> bool:
        return self.p < SIGNIFICANT

    def view(self) -> PairedView:
        return PairedView(
            n=self.n,
            both=self.both,
            a_only=self.a_only,
            b_only=self.b_only,
            neither=self.neither,
            delta=None if self.delta is None else round(self.delta, 4),
            low=round(self.low, 4),
            high=round(self.high, 4),
            p=round(self.p, 6),
            significant=self.significant,
        )


def mcnemar_exact(b: int, c: int) -> float:
    """McNemar's exact test on the discordant counts: two-sided binomial p for min(b, c)
    of b + c under p = 1/2 (1 when there is no discordant pair)."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(comb(n, i) for i in range(min(b, c) + 1)) / 2**n
    return min(1.0, 2 * tail)


def paired(pairs: list[tuple[bool, bool]]) -> Paired:
    """The paired comparison of A and B over items scored in both: (passed in A, in B)."""
    both = sum(a and b for a, b in pairs)
    a_only = sum(a and not b for a, b in pairs)
    b_only = sum(b and not a for a, b in pairs)
    neither = len(pairs) - both - a_only - b_only
    delta, low, high = newcombe_paired(both, a_only, b_only, neither)
    return Paired(both, a_only, b_only, neither, delta, low, high, mcnemar_exact(a_only, b_only))


def newcombe_paired(
    both: int, a_only: int, b_only: int, neither: int
) -> tuple[float | None, float, float]:
    """B's rate minus A's on paired items, with Newcombe's square-and-add interval (1998,
    method 10): Wilson intervals of both rates combined with their correlation phi."""
    n = both + a_only + b_only + neither
    if n == 0:
        return None, -1.0, 1.0
    k_a, k_b = both + a_only, both + b_only
    p_a, p_b = k_a / n, k_b / n
    l_a, u_a = wilson(k_a, n)
    l_b, u_b = wilson(k_b, n)
    margins = (both + a_only) * (b_only + neither) * (both + b_only) * (a_only + neither)
    cross: float = both * neither - a_only * b_only
    # Newcombe's phi, its positive part shrunk by n/2 (a continuity correction).
    if cross > 0:
        cross = max(cross - n / 2, 0)
    phi = cross / sqrt(margins) if margins else 0.0
    delta = p_b - p_a
    below = (p_b - l_b) ** 2 - 2 * phi * (p_b - l_b) * (u_a - p_a) + (u_a - p_a) ** 2
    above = (u_b - p_b) ** 2 - 2 * phi * (u_b - p_b) * (p_a - l_a) + (p_a - l_a) ** 2
    return delta, max(-1.0, delta - sqrt(max(below, 0.0))), min(1.0, delta + sqrt(max(above, 0.0)))


def newcombe_unpaired(k_a: int, n_a: int, k_b: int, n_b: int) -> tuple[float | None, float, float]:
    """B's rate minus A's on independent samples, with Newcombe's hybrid score interval
    (1998, method 10): each rate's Wilson interval, squared and added."""
    if not n_a or not n_b:
        return None, -1.0, 1.0
    p_a, p_b = k_a / n_a, k_b / n_b
    l_a, u_a = wilson(k_a, n_a)
    l_b, u_b = wilson(k_b, n_b)
    delta = p_b - p_a
    low = delta - sqrt((p_b - l_b) ** 2 + (u_a - p_a) ** 2)
    high = delta + sqrt((u_b - p_b) ** 2 + (p_a - l_a) ** 2)
    return delta, max(-1.0, low), min(1.0, high)


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that at least one of k attempts drawn from n (c of them passing) passes:
    1 - C(n-c, k) / C(n, k) (Chen et al., 2021)."""
    _check(n, c, k)
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k: the chance that all k attempts drawn from n (c of them passing) pass:
    C(c, k) / C(n, k) (tau-bench, Yao et al., 2024)."""
    _check(n, c, k)
    return comb(c, k) / comb(n, k)


def _check(n: int, c: int, k: int) -> None:
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"expected 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")


def repeats(records: Iterable[Record]) -> Repeats:
    """pass@k and pass^k for k = 1 … the most attempts any task has, each the mean over the
    tasks with at least k scored attempts, and the agreement: the share of tasks with two or
    more scored attempts whose attempts all pass or all fail (None without such a task).
    `records` are a run's (unscored ones are left out)."""
    outcomes: dict[str, list[int]] = defaultdict(list)
    for record in records:
        if record.ems is not None:
            outcomes[record.task].append(int(record.ems))
    most = max((len(o) for o in outcomes.values()), default=0)
    at_k, hat_k = {}, {}
    for k in range(1, most + 1):
        counts = [(len(o), sum(o)) for o in outcomes.values() if len(o) >= k]
        at_k[str(k)] = round(sum(pass_at_k(n, c, k) for n, c in counts) / len(counts), 4)
        hat_k[str(k)] = round(sum(pass_hat_k(n, c, k) for n, c in counts) / len(counts), 4)
    repeated = [o for o in outcomes.values() if len(o) > 1]
    agreeing = sum(len(set(o)) == 1 for o in repeated)
    return Repeats(
        attempts=most,
        pass_at_k=at_k,
        pass_hat_k=hat_k,
        agreement=round(agreeing / len(repeated), 4) if repeated else None,
    )
