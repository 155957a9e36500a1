"""Seeded property checks for allocate.

The seed comes from PROPERTY_SEED (receipt-gate sets it to checks/manifest.json's seed) and
the number of trials from PROPERTY_TRIALS. A failure prints the seed: rerun with the same
PROPERTY_SEED to replay it. A run on another seed is a new experiment, not a confirmation.
"""

import os
import random

from allocate import allocate

SEED = int(os.environ.get("PROPERTY_SEED", "20260906"))
TRIALS = int(os.environ.get("PROPERTY_TRIALS", "200"))


def cases():
    rng = random.Random(SEED)
    for _ in range(TRIALS):
        total = rng.randint(0, 10_000)
        weights = [rng.randint(0, 50) for _ in range(rng.randint(1, 8))]
        if sum(weights) == 0:
            weights[rng.randrange(len(weights))] = rng.randint(1, 50)
        yield total, weights, rng.getrandbits(32)


def test_parts_are_an_exact_non_negative_split():
    for total, weights, seed in cases():
        parts = allocate(total, weights, seed)
        where = f"PROPERTY_SEED={SEED}: allocate({total}, {weights}, {seed}) = {parts}"
        assert len(parts) == len(weights), where
        assert sum(parts) == total, where
        assert all(p >= 0 for p in parts), where


def test_ties_are_stable_for_a_seed():
    rng = random.Random(SEED)
    for _ in range(TRIALS):
        seed = rng.getrandbits(32)
        first = allocate(100, [1, 1, 1, 1], seed)
        assert first == allocate(100, [1, 1, 1, 1], seed), f"PROPERTY_SEED={SEED}, seed {seed}"
        assert sum(first) == 100, f"PROPERTY_SEED={SEED}, seed {seed}: {first}"
