"""Integer allocation: split a total (integer cents) over integer weights.

Largest remainder: each part starts at floor(total * weight / sum(weights)); the cents left
over go one each to the parts with the largest remainders. Parts whose remainders tie are
ordered by a permutation drawn from the seed, so the same seed always gives the same split
and equal weights never swap under a held seed.
"""

import random


def allocate(total, weights, seed):
    """Return a list of non-negative integers, one per weight, summing to total."""
    if total < 0:
        raise ValueError("total must be non-negative")
    if not weights or any(w < 0 for w in weights) or sum(weights) == 0:
        raise ValueError("weights must be non-negative and not all zero")
    whole = sum(weights)
    parts = [total * w // whole for w in weights]
    remainders = [total * w % whole for w in weights]
    rank = list(range(len(weights)))
    random.Random(seed).shuffle(rank)
    left = total - sum(parts)
    order = sorted(range(len(weights)), key=lambda i: (-remainders[i], rank[i]))
    for i in order[:left]:
        parts[i] += 1
    return parts
