/**
 * The Python programs of a `tests` run (stdlib only): the candidate process, which loads the
 * solution and answers calls, and the judge process, which runs the tests against stubs that
 * forward each call to the candidate. What crosses between them is JSON in the codec below;
 * see harness.ts for who sees what.
 */

/**
 * Plain values both ways: None, bool, int, float, str and lists as JSON; tuple, dict, set,
 * frozenset, bytes, bytearray, complex, Decimal, Fraction and range tagged as {"$": type, "v": …}.
 * The decoder builds only builtin values, so what the judge compares never runs the solution's
 * code (no `__eq__`, `__hash__` or `__bool__` of a class the solution defined).
 */
const PYTHON_CODEC = String.raw`
import base64 as _b64, decimal as _decimal, fractions as _fractions, itertools as _itertools, json as _json
_MAX_DEPTH = 100
_MAX_ITEMS = 100000
def encode(v, depth=0):
    if depth > _MAX_DEPTH:
        raise ValueError("the value is nested more than %d levels deep" % _MAX_DEPTH)
    t = type(v)
    if v is None or t is bool or t is str or t is int or t is float:
        return v
    d = depth + 1
    if t is list:
        return [encode(x, d) for x in v]
    if t is tuple:
        return {"$": "tuple", "v": [encode(x, d) for x in v]}
    if t is dict:
        return {"$": "dict", "v": [[encode(k, d), encode(x, d)] for k, x in v.items()]}
    if t is set or t is frozenset:
        return {"$": t.__name__, "v": [encode(x, d) for x in v]}
    if t is bytes or t is bytearray:
        return {"$": t.__name__, "v": _b64.b64encode(bytes(v)).decode("ascii")}
    if t is complex:
        return {"$": "complex", "v": [v.real, v.imag]}
    if t is _decimal.Decimal:
        return {"$": "decimal", "v": str(v)}
    if t is _fractions.Fraction:
        return {"$": "fraction", "v": [v.numerator, v.denominator]}
    if t is range:
        return {"$": "range", "v": [v.start, v.stop, v.step]}
    # Subclasses of plain types (IntEnum, namedtuple, OrderedDict…) cross as the plain type.
    for base in (bool, int, float, str, tuple, list, dict, frozenset, set, bytes):
        if isinstance(v, base):
            return encode(base(v), depth)
    if hasattr(t, "__next__"):
        return {"$": "iter", "v": [encode(x, d) for x in _itertools.islice(v, _MAX_ITEMS)]}
    raise TypeError("a %s cannot cross to the other process (only plain values do: numbers, strings, lists, tuples, dicts, sets, bytes)" % t.__name__)
def decode(v):
    if isinstance(v, list):
        return [decode(x) for x in v]
    if isinstance(v, dict):
        tag, x = v.get("$"), v.get("v")
        if tag == "tuple": return tuple(decode(i) for i in x)
        if tag == "dict": return {decode(k): decode(i) for k, i in x}
        if tag == "set": return set(decode(i) for i in x)
        if tag == "frozenset": return frozenset(decode(i) for i in x)
        if tag == "bytes": return _b64.b64decode(x)
        if tag == "bytearray": return bytearray(_b64.b64decode(x))
        if tag == "complex": return complex(float(x[0]), float(x[1]))
        if tag == "decimal": return _decimal.Decimal(str(x))
        if tag == "fraction": return _fractions.Fraction(int(x[0]), int(x[1]))
        if tag == "range": return range(int(x[0]), int(x[1]), int(x[2]))
        if tag == "iter": return iter([decode(i) for i in x])
        raise ValueError("unknown value tag %r" % (tag,))
    if v is None or type(v) in (bool, int, float, str):
        return v
    raise ValueError("not a value")
`;

/**
 * The candidate process: loads solution.py, lists what it defines, then answers one call per
 * line. Prints go to stderr (fd 1 is pointed there), and stdin reads as empty, so neither the
 * solution's output nor its input() touches the protocol.
 */
export const PYTHON_CANDIDATE = PYTHON_CODEC + String.raw`
import os, sys, types, traceback
_channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
_requests = os.fdopen(os.dup(0), "rb")
os.dup2(2, 1)
_null = os.open(os.devnull, os.O_RDONLY)
os.dup2(_null, 0)
sys.stdin = open(os.devnull)
def _send(message):
    _channel.write(_json.dumps(message) + "\n")
    _channel.flush()
def _describe(e):
    text = "%s: %s" % (type(e).__name__, e) if str(e) else type(e).__name__
    for frame in reversed(traceback.extract_tb(e.__traceback__)):
        if frame.filename == "solution.py":
            text += " (solution.py line %d: %s)" % (frame.lineno, (frame.line or "").strip())
            break
    return text[:2000]
namespace = {"__name__": "__main__"}
try:
    exec(compile(open("solution.py", encoding="utf-8").read(), "solution.py", "exec"), namespace)
except BaseException as e:
    _send({"load_error": _describe(e)})
    sys.exit(0)
names = {}
for name, value in list(namespace.items()):
    if name.startswith("__") or isinstance(value, types.ModuleType):
        continue
    if callable(value):
        names[name] = {"kind": "function"}
    else:
        try:
            names[name] = {"kind": "value", "v": encode(value)}
        except Exception:
            pass
_send({"ready": names})
for line in _requests:
    call = _json.loads(line)
    try:
        args = decode(call["args"])
        kwargs = decode(call["kwargs"])
        result = namespace[call["name"]](*args, **kwargs)
        _send({"id": call["id"], "ok": encode(result), "args": [encode(a) if type(a) in (list, dict, set, bytearray) else None for a in args]})
    except BaseException as e:
        _send({"id": call["id"], "raise": {"type": type(e).__name__, "message": _describe(e)}})
`;

/**
 * The judge process: reads the job (tests, entry point, per-test seconds) from stdin, asks the
 * referee to load the solution, then runs each test against stubs and writes one result line
 * per test. Tests are MBPP assert scripts, pytest-style `def test_*` functions, or a HumanEval
 * `check(candidate)`.
 */
export const PYTHON_JUDGE = PYTHON_CODEC + String.raw`
import os, sys, io, builtins, contextlib, traceback, signal, itertools
_channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
_replies = os.fdopen(os.dup(0), "rb")
os.dup2(2, 1)
job = _json.loads(_replies.readline())
def send(message):
    _channel.write(_json.dumps(message) + "\n")
    _channel.flush()
def receive():
    line = _replies.readline()
    if not line:
        raise SystemExit(0)
    return _json.loads(line)
class TestTimeout(BaseException):
    pass
class SolutionCrashed(Exception):
    pass
class SolutionError(Exception):
    pass
def raised(info):
    # The solution's exception, rebuilt as the builtin class of that name (so pytest.raises(ValueError)
    # and except ValueError work); any other name, or a non-Exception class, is a SolutionError.
    kind = getattr(builtins, str(info.get("type")), None)
    message = str(info.get("message", ""))
    if isinstance(kind, type) and issubclass(kind, Exception) and kind is not AssertionError:
        try:
            return kind(message)
        except Exception:
            pass
    return SolutionError(message)
_ids = itertools.count(1)
def stub(name):
    def call(*args, **kwargs):
        n = next(_ids)
        send({"call": {"id": n, "name": name, "args": encode(list(args)), "kwargs": encode(dict(kwargs))}})
        while True:
            reply = receive()
            if reply.get("id") == n:
                break
        if "timeout" in reply:
            raise TestTimeout("the solution ran past %ss" % job["per_test_s"])
        if "lost" in reply:
            raise SolutionCrashed(reply["lost"])
        if "raise" in reply:
            raise raised(reply["raise"])
        for sent, back in zip(args, reply.get("args") or []):
            if back is None or type(sent) not in (list, dict, set, bytearray):
                continue
            value = decode(back)
            if type(value) is not type(sent):
                continue
            if type(sent) is list or type(sent) is bytearray:
                sent[:] = value
            else:
                sent.clear()
                sent.update(value)
        return decode(reply["ok"])
    call.__name__ = call.__qualname__ = name
    return call
def describe(e):
    where = ""
    for frame in reversed(traceback.extract_tb(e.__traceback__)):
        if frame.filename.startswith("<test"):
            lines = job["tests"][int(frame.filename.strip("<>").split()[1]) - 1].splitlines()
            line = lines[frame.lineno - 1].strip() if 0 < frame.lineno <= len(lines) else ""
            where = " (%s line %d: %s)" % (frame.filename.strip("<>"), frame.lineno, line)
            break
    text = "%s: %s" % (type(e).__name__, e) if str(e) else type(e).__name__
    return (text + where)[:2000]
def on_alarm(signum, frame):
    raise TestTimeout("the test ran past %ss" % job["per_test_s"])
signal.signal(signal.SIGALRM, on_alarm)
send({"load": True})
ready = receive()
if "load_error" in ready:
    send({"load_error": str(ready["load_error"])[:2000]})
    send({"done": True})
    sys.exit(0)
entry = job.get("entry_point")
base = {"__name__": "__main__"}
# A name the solution defines never hides a builtin from the tests (a solution's own sorted() or
# isinstance() would otherwise judge its answers), except the entry point the task names.
for name, info in (ready.get("ready") or {}).items():
    if not isinstance(name, str) or not name.isidentifier() or name.startswith("__") or (hasattr(builtins, name) and name != entry):
        continue
    if info.get("kind") == "function":
        base[name] = stub(name)
    elif info.get("kind") == "value":
        try:
            base[name] = decode(info.get("v"))
        except Exception:
            pass
captured = io.StringIO()
for index, test in enumerate(job["tests"]):
    env = dict(base)
    try:
        with contextlib.redirect_stdout(captured):
            signal.alarm(job["per_test_s"] + 1)
            exec(compile(test, "<test %d>" % (index + 1), "exec"), env)
            # Functions the test defined (a stub of the same name is replaced, so it is the test's).
            for name, value in list(env.items()):
                if name.startswith("test_") and callable(value) and value is not base.get(name):
                    value()
            check = env.get("check")
            if entry and callable(check) and check is not base.get("check"):
                if entry not in env:
                    raise NameError("the solution defines no %s" % entry)
                check(env[entry])
            signal.alarm(0)
        send({"test": index, "ok": True})
    except BaseException as e:
        signal.alarm(0)
        send({"test": index, "ok": False, "error": describe(e)})
send({"done": True})
`;
