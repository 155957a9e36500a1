# Reference draws from CPython's random.Random for the pyrandom differential tests.
# stdin: one JSON request per line: {"seed": <hex, "-" for negative>, "ops": [[op, ...args], ...]}
# (hex, because int() refuses decimal strings over 4300 digits)
#   ["bits", k] -> getrandbits(k); ["below", n] -> _randbelow(n); ["random"] -> random();
#   ["sample", n, k] -> sample(range(n), k)
# stdout: one JSON line per request: the list of results; ints as decimal strings, floats as
# repr, a raised exception as {"error": <class>, "msg": <str>} (the generator state then stays
# as Python leaves it).
import json, random, sys


def run(req):
    rnd = random.Random(int(req["seed"], 16))
    out = []
    for op in req["ops"]:
        try:
            if op[0] == "bits":
                out.append(str(rnd.getrandbits(op[1])))
            elif op[0] == "below":
                out.append(str(rnd._randbelow(int(op[1]))))
            elif op[0] == "random":
                out.append(repr(rnd.random()))
            elif op[0] == "sample":
                out.append(rnd.sample(range(op[1]), op[2]))
            else:
                raise KeyError(op[0])
        except ValueError as e:
            out.append({"error": type(e).__name__, "msg": str(e)})
    return out


for line in sys.stdin:
    try:
        result = run(json.loads(line))
    except Exception as e:  # a broken request: say so in the answer instead of dying mid-batch
        result = {"oracle_error": repr(e)}
    sys.stdout.write(json.dumps(result) + "\n")
