"""The board's statistics against cases computed by hand or published."""

from __future__ import annotations

import pytest

from services.core.results.stats import (
    mcnemar_exact,
    newcombe_paired,
    paired,
    pass_at_k,
    pass_hat_k,
    rate,
    wilson,
)


def test_wilson_known_cases():
    # 8 of 10: the textbook 0.490-0.943 (Newcombe 1998a, Table I, method 3).
    low, high = wilson(8, 10)
    assert (round(low, 4), round(high, 4)) == (0.4902, 0.9433)
    # 0 of n and n of n: the closed forms z²/(n+z²) and n/(n+z²).
    z2 = 1.959963984540054**2
    assert wilson(0, 10) == (0.0, pytest.approx(z2 / (10 + z2)))
    assert wilson(10, 10) == (pytest.approx(10 / (10 + z2)), pytest.approx(1.0))
    assert wilson(0, 0) == (0.0, 1.0)


def test_a_rate_carries_its_counts_and_interval():
    got = rate(3, 4).view()
    assert got.value == 0.75 and (got.k, got.n) == (3, 4)
    assert got.low < 0.75 < got.high
    assert rate(0, 0).value is None


def test_wilson_refuses_impossible_counts():
    with pytest.raises(ValueError):
        wilson(5, 4)


def test_mcnemar_exact_by_hand():
    # 12 and 2 discordant: 2 * (C(14,0) + C(14,1) + C(14,2)) / 2^14 = 2 * 106 / 16384.
    assert mcnemar_exact(12, 2) == pytest.approx(212 / 16384)
    assert mcnemar_exact(2, 12) == mcnemar_exact(12, 2)
    # 1 and 0: 2 * 1/2 = 1; no discordant pair: 1.
    assert mcnemar_exact(1, 0) == 1.0 and mcnemar_exact(0, 0) == 1.0
    # 5 and 0: 2 / 32.
    assert mcnemar_exact(5, 0) == pytest.approx(0.0625)


def test_newcombe_paired_published_case():
    # Newcombe 1998b, example (a): 36 both, 12 and 2 discordant, 0 neither; A - B = 0.2,
    # method 10 gives 0.0569 to 0.3404. Here the difference is B - A, so the signs flip.
    delta, low, high = newcombe_paired(36, 12, 2, 0)
    assert delta == pytest.approx(-0.2)
    assert (round(low, 4), round(high, 4)) == (-0.3404, -0.0569)


def test_paired_counts_and_significance():
    pairs = [(True, True)] * 3 + [(True, False)] * 6 + [(False, False)]
    got = paired(pairs)
    assert (got.both, got.a_only, got.b_only, got.neither) == (3, 6, 0, 1)
    assert got.delta == pytest.approx(-0.6)
    assert got.p == pytest.approx(2 / 64) and got.significant
    assert got.low < -0.6 < got.high < 0
    same = paired([(True, True), (False, False)])
    assert same.delta == 0 and same.p == 1.0 and not same.significant


def test_pass_at_k_and_pass_hat_k_by_hand():
    # 4 attempts, 2 pass: pass^2 = C(2,2)/C(4,2) = 1/6; pass@2 = 1 - C(2,2)/C(4,2) = 5/6.
    assert pass_hat_k(4, 2, 2) == pytest.approx(1 / 6)
    assert pass_at_k(4, 2, 2) == pytest.approx(5 / 6)
    # k = 1: both are the plain pass rate.
    assert pass_hat_k(5, 3, 1) == pass_at_k(5, 3, 1) == pytest.approx(0.6)
    # all pass or none.
    assert pass_hat_k(3, 3, 3) == 1.0 and pass_at_k(3, 0, 3) == 0.0
    # 3 of 4, k = 3: pass^3 = C(3,3)/C(4,3) = 1/4; pass@3 = 1.
    assert pass_hat_k(4, 3, 3) == pytest.approx(0.25) and pass_at_k(4, 3, 3) == 1.0
    with pytest.raises(ValueError):
        pass_hat_k(2, 1, 3)
