"""The fixture command: one input as JSON on stdin, its parts as canonical JSON on stdout.

Input: {"total": int, "weights": [int, ...], "seed": int (optional, default 0)}.
receipt-gate hashes exactly these bytes and compares them with the fixture record's sha256.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from allocate import allocate  # noqa: E402


def render(case):
    parts = allocate(case["total"], case["weights"], case.get("seed", 0))
    return json.dumps({"parts": parts}, sort_keys=True, separators=(",", ":"))


if __name__ == "__main__":
    sys.stdout.write(render(json.load(sys.stdin)))
