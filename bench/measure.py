#!/usr/bin/env python3
"""Runs a command and measures it from outside its process.

usage: measure.py OUT LABEL COMMAND [ARG...]

Spawns COMMAND (stdin, stdout and stderr inherited, so a hook still reads git's protocol),
waits for it with wait4(2) and appends one JSON line to OUT: the label, the wall time from
spawn to exit, the peak resident set size (ru_maxrss: the largest of the process and of every
descendant it waited for, in KiB) and the exit code. Exits with the command's exit code.
"""
import json
import os
import sys
import time


def main() -> int:
    if len(sys.argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    out, label, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
    start = time.monotonic()
    pid = os.posix_spawnp(cmd[0], cmd, os.environ)
    _, status, usage = os.wait4(pid, 0)
    wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    record = {
        "label": label,
        "wall_ms": round(wall * 1000, 2),
        "maxrss_kb": usage.ru_maxrss,
        "user_ms": round(usage.ru_utime * 1000, 1),
        "sys_ms": round(usage.ru_stime * 1000, 1),
        "exit": code,
    }
    with open(out, "a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main())
