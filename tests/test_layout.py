"""Memory-layout geometry (``datamove._layout``) against brute force: every element listed."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from datamove._layout import ranges_apart, self_overlapping, span
from strategies import fixed_settings

layouts = st.integers(1, 4).flatmap(
    lambda rank: st.tuples(
        st.lists(st.integers(0, 4), min_size=rank, max_size=rank),
        st.lists(st.integers(-12, 12), min_size=rank, max_size=rank),
        st.integers(1, 4),
    )
)


def _shared_byte(shape: list[int], strides: list[int], itemsize: int) -> bool:
    """Whether two elements share a byte: every element's first byte, listed and sorted."""
    starts = sorted(
        sum(i * st for i, st in zip(index, strides, strict=True))
        for index in itertools.product(*(range(n) for n in shape))
    )
    return any(b - a < itemsize for a, b in itertools.pairwise(starts))


@fixed_settings(500)
@given(layouts)
def test_self_overlapping_is_conservative_and_exact_when_asked(layout):
    shape, strides, itemsize = layout
    truth = _shared_byte(shape, strides, itemsize)
    assert self_overlapping(shape, strides, itemsize, exact_up_to=10**6) == truth
    if truth:  # the sorted-strides test never calls an overlapping layout apart
        assert self_overlapping(shape, strides, itemsize)
    count = int(np.prod(shape))
    if count > 1:  # past exact_up_to elements, the answer is the sorted-strides test's again
        assert self_overlapping(
            shape, strides, itemsize, exact_up_to=count - 1
        ) == self_overlapping(shape, strides, itemsize)


def test_self_overlapping_brute_force_gives_up_past_int64():
    # Addresses that do not fit in int64 are not listed: the layout counts as overlapping.
    assert self_overlapping((2, 3), (2**62, 2**61), 1, exact_up_to=10**6)
    assert not self_overlapping((2, 3), (3 * 2**40, 2**40), 1, exact_up_to=10**6)


@fixed_settings(300)
@given(st.lists(st.tuples(st.integers(0, 50), st.integers(1, 10)), max_size=8))
def test_ranges_apart_is_no_shared_byte(starts_and_lengths):
    ranges = [(lo, lo + n) for lo, n in starts_and_lengths]
    covered = [set(range(lo, hi)) for lo, hi in ranges]
    truth = all(not (a & b) for a, b in itertools.combinations(covered, 2))
    assert ranges_apart(ranges) == truth


def test_span_is_the_bytes_between_the_first_and_last_element():
    assert span(1000, (2, 3), (-24, 8), 8) == (976, 1024)
    assert span(0, (2, 0), (8, 1), 1) is None
