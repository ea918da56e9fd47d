import numpy as np
import pytest
from scipy.stats import entropy as scipy_entropy

from concord_stats.entropy import normalised_entropy, shannon_entropy


@pytest.mark.parametrize(
    "counts",
    [[30, 10, 15, 5], [1, 1, 1, 1], [60, 0, 0, 0], [0, 7, 0, 2], [1, 0, 0, 0], [3, 3]],
)
@pytest.mark.parametrize("base", [2, np.e])
def test_entropy_matches_scipy(counts, base):
    assert shannon_entropy(counts, base=base) == pytest.approx(
        scipy_entropy(counts, base=base), abs=1e-12
    )


def test_entropy_is_vectorised_over_leading_axes():
    counts = np.random.default_rng(0).integers(0, 20, size=(5, 7, 4))
    counts[..., 0] += 1  # no empty row
    expected = scipy_entropy(counts, base=2, axis=-1)
    np.testing.assert_allclose(shannon_entropy(counts), expected, atol=1e-12)


def test_edge_cases():
    assert shannon_entropy([5, 0, 0, 0]) == 0.0  # all the same answer: no spread
    assert shannon_entropy([1, 1, 1, 1]) == pytest.approx(2.0)  # uniform over 4: log2 4
    assert np.isnan(shannon_entropy([0, 0, 0, 0]))  # no valid answer: undefined
    with pytest.raises(ValueError):
        shannon_entropy([1, -1])


def test_normalised_entropy_uses_declared_categories():
    # two categories used out of four declared: log(2)/log(4), not 1
    assert normalised_entropy([3, 3, 0, 0], n_categories=4) == pytest.approx(0.5)
    assert normalised_entropy([2, 2, 2, 2], n_categories=4) == pytest.approx(1.0)
    assert np.isnan(normalised_entropy([4], n_categories=1))
