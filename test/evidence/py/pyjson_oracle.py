# Reference answers from CPython for the pyjson differential tests.
# stdin: one JSON request per line; stdout: one JSON answer per line, in order.
#   {"op": "loads", "mode": "bytes"|"str", "data": <base64>}
#       "str" data is UTF-16-LE code units (lone surrogates allowed), as a JavaScript string holds them.
#       -> {"ok": true, "dump": <json.dumps(v, sort_keys=True, separators=(",", ":"))>, "sha256": <hex>}
#       -> {"ok": false, "type": <exception class>, "msg": <str(exception)>}
#   {"op": "eq", "a": <text>, "b": <text>}        -> {"eq": json.loads(a) == json.loads(b)}
#   {"op": "repr", "bits": <16 hex digits, big-endian IEEE 754>} -> {"repr": repr(float)}
#   {"op": "float", "text": <text>}               -> {"bits": <16 hex digits of float(text)>}
import base64, hashlib, json, struct, sys


def answer(req):
    op = req["op"]
    if op == "loads":
        data = base64.b64decode(req["data"])
        doc = data if req["mode"] == "bytes" else data.decode("utf-16-le", "surrogatepass")
        try:
            value = json.loads(doc)
            dump = json.dumps(value, sort_keys=True, separators=(",", ":"))
        except (ValueError, RecursionError) as e:
            return {"ok": False, "type": type(e).__name__, "msg": str(e)}
        return {"ok": True, "dump": dump, "sha256": hashlib.sha256(dump.encode("utf-8")).hexdigest()}
    if op == "eq":
        return {"eq": json.loads(req["a"]) == json.loads(req["b"])}
    if op == "repr":
        return {"repr": repr(struct.unpack(">d", bytes.fromhex(req["bits"]))[0])}
    if op == "float":
        return {"bits": struct.pack(">d", float(req["text"])).hex()}
    raise ValueError("unknown op " + op)


for line in sys.stdin:
    try:
        result = answer(json.loads(line))
    except Exception as e:  # a broken request: say so in the answer instead of dying mid-batch
        result = {"oracle_error": repr(e)}
    sys.stdout.write(json.dumps(result) + "\n")
