"""Ordinary unit tests of allocate. test_concurrent_realloc is frozen in freeze.json (timing):
conftest.py skips it in the agent-patch pipeline; the scheduled job still runs it."""

import threading

from allocate import allocate


def test_even_split():
    assert allocate(100, [1, 1, 1, 1], 7) == [25, 25, 25, 25]


def test_zero_weight_gets_nothing():
    assert allocate(1000, [0, 3, 1], 7)[0] == 0


def test_remainder_goes_to_the_largest_remainder():
    assert allocate(10, [2, 1], 7) == [7, 3]


def test_concurrent_realloc():
    results = []

    def worker(seed):
        results.append(allocate(999, [1, 1, 1], seed))

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=1.0)
    assert len(results) == 8
    assert all(sum(r) == 999 for r in results)
