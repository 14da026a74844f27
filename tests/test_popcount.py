"""The byte-table popcount that stands in for np.bitwise_count on numpy 1.x gives the ufunc's answers."""

import numpy as np
import pytest

from bm_env.vector.popcount import table_bitwise_count


def _reference(a):
    """Set bits per element, counted in Python: what np.bitwise_count returns (uint8)."""
    return np.array([bin(int(v)).count("1") for v in np.ravel(a)], dtype=np.uint8).reshape(np.shape(a))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64])
def test_table_count_matches_the_bits_of_every_element(dtype):
    rng = np.random.default_rng(0)
    info = np.iinfo(dtype)
    a = rng.integers(0, info.max, size=(7, 5), dtype=dtype, endpoint=True)
    a[0, 0], a[0, 1] = 0, info.max
    out = table_bitwise_count(a)
    assert out.dtype == np.uint8 and out.shape == a.shape
    np.testing.assert_array_equal(out, _reference(a))
    np.testing.assert_array_equal(table_bitwise_count(a[:, ::2]), _reference(a[:, ::2]))  # not contiguous


def test_table_count_of_a_scalar_is_a_scalar_and_signed_input_is_refused():
    assert table_bitwise_count(np.uint64(2**63 + 5)) == 3 and np.ndim(table_bitwise_count(np.uint64(7))) == 0
    with pytest.raises(TypeError, match="unsigned integers, got int64"):
        table_bitwise_count(np.array([-1]))
