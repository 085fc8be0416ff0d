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
def encode(v, depth=0, ref=None):
    if depth > _MAX_DEPTH:
        raise ValueError("the value is nested more than %d levels deep" % _MAX_DEPTH)
    t = type(v)
    if v is None or t is bool or t is str or t is int or t is float:
        return v
    d = depth + 1
    if t is list:
        return [encode(x, d, ref) for x in v]
    if t is tuple:
        return {"$": "tuple", "v": [encode(x, d, ref) for x in v]}
    if t is dict:
        return {"$": "dict", "v": [[encode(k, d, ref), encode(x, d, ref)] for k, x in v.items()]}
    if t is set or t is frozenset:
        return {"$": t.__name__, "v": [encode(x, d, ref) for x in v]}
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
            return encode(base(v), depth, ref)
    if hasattr(t, "__next__"):
        return {"$": "iter", "v": [encode(x, d, ref) for x in _itertools.islice(v, _MAX_ITEMS)]}
    if ref is not None:
        # An object of the solution's own (a Pair, a Node): it stays in the solution's process and
        # crosses as a handle; the judge can pass it back, call its methods and read its attributes.
        return {"$": "ref", "v": ref(v)}
    raise TypeError("a %s cannot cross to the other process (only plain values do: numbers, strings, lists, tuples, dicts, sets, bytes)" % t.__name__)
def decode(v, deref=None):
    if isinstance(v, list):
        return [decode(x, deref) for x in v]
    if isinstance(v, dict):
        tag, x = v.get("$"), v.get("v")
        if tag == "ref" and deref is not None: return deref(int(x))
        if tag == "tuple": return tuple(decode(i, deref) for i in x)
        if tag == "dict": return {decode(k, deref): decode(i, deref) for k, i in x}
        if tag == "set": return set(decode(i, deref) for i in x)
        if tag == "frozenset": return frozenset(decode(i, deref) for i in x)
        if tag == "bytes": return _b64.b64decode(x)
        if tag == "bytearray": return bytearray(_b64.b64decode(x))
        if tag == "complex": return complex(float(x[0]), float(x[1]))
        if tag == "decimal": return _decimal.Decimal(str(x))
        if tag == "fraction": return _fractions.Fraction(int(x[0]), int(x[1]))
        if tag == "range": return range(int(x[0]), int(x[1]), int(x[2]))
        if tag == "iter": return iter([decode(i, deref) for i in x])
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
_objects = []
_index = {}
def _ref(obj):
    # Objects stay alive in _objects, so id() is not reused while indexed.
    if id(obj) not in _index:
        _index[id(obj)] = len(_objects)
        _objects.append(obj)
    return _index[id(obj)]
def _deref(i):
    return _objects[i]
def _out(v):
    return encode(v, 0, _ref)
for line in _requests:
    call = _json.loads(line)
    try:
        args = decode(call["args"], _deref)
        kwargs = decode(call["kwargs"], _deref)
        target = call.get("target")
        if target is None:
            fn = namespace[call["name"]]
        else:
            if str(call["name"]).startswith("__") and call["name"] not in ("__len__", "__iter__", "__getitem__", "__contains__", "__call__"):
                raise AttributeError(call["name"])
            fn = getattr(_deref(int(target)), call["name"])
            if call.get("get"):
                _send({"id": call["id"], "ok": {"$": "method"} if callable(fn) else _out(fn)})
                continue
        result = fn(*args, **kwargs)
        if target is not None and call["name"] == "__iter__":
            result = list(_itertools.islice(result, _MAX_ITEMS))
        _send({"id": call["id"], "ok": _out(result), "args": [_out(a) if type(a) in (list, dict, set, bytearray) else None for a in args]})
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
# Exceptions the interpreter reads as control flow: a StopIteration raised through map() or filter()
# ends the test's loop as if the inputs ran out, so all(map(f, cases)) held with nothing checked.
_CONTROL_FLOW = (AssertionError, StopIteration, StopAsyncIteration)
def raised(info):
    # The solution's exception, rebuilt as the builtin class of that name (so pytest.raises(ValueError)
    # and except ValueError work); any other name, a non-Exception class or control flow is a SolutionError.
    kind = getattr(builtins, str(info.get("type")), None)
    message = str(info.get("message", ""))
    if isinstance(kind, type) and issubclass(kind, Exception) and not issubclass(kind, _CONTROL_FLOW):
        try:
            return kind(message)
        except Exception:
            pass
    return SolutionError(message)
_ids = itertools.count(1)
class Remote:
    """An object of the solution's, held in its process. Equality and hashing are by identity here
    (never the solution's __eq__); attributes and methods are asked for over the channel."""
    __slots__ = ("_ref",)
    def __init__(self, ref):
        object.__setattr__(self, "_ref", ref)
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = _ask(name, (), {}, target=self._ref, get=True)
        return stub(name, self._ref) if value is _METHOD else value
    def __eq__(self, other):
        return isinstance(other, Remote) and other._ref == self._ref
    def __hash__(self):
        return hash(("remote", self._ref))
    def __repr__(self):
        return "<the solution's object #%d>" % self._ref
    def __len__(self):
        return _ask("__len__", (), {}, target=self._ref)
    def __iter__(self):
        return iter(_ask("__iter__", (), {}, target=self._ref))
    def __getitem__(self, key):
        return _ask("__getitem__", (key,), {}, target=self._ref)
    def __contains__(self, item):
        return _ask("__contains__", (item,), {}, target=self._ref)
    def __call__(self, *args, **kwargs):
        return _ask("__call__", args, kwargs, target=self._ref)
_METHOD = object()
_remotes = {}
def _deref(i):
    return _remotes.setdefault(i, Remote(i))
def _refof(v):
    if isinstance(v, Remote):
        return v._ref
    raise TypeError("a %s cannot cross to the solution's process (only plain values and its own objects do)" % type(v).__name__)
def stub(name, target=None):
    def call(*args, **kwargs):
        return _ask(name, args, kwargs, target)
    call.__name__ = call.__qualname__ = name
    return call
def _ask(name, args, kwargs, target=None, get=False):
    n = next(_ids)
    request = {"id": n, "name": name, "args": encode(list(args), 0, _refof), "kwargs": encode(dict(kwargs), 0, _refof)}
    if target is not None:
        request["target"] = target
    if get:
        request["get"] = True
    send({"call": request})
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
    if reply.get("ok") == {"$": "method"}:
        return _METHOD
    for sent, back in zip(args, reply.get("args") or []):
        if back is None or type(sent) not in (list, dict, set, bytearray):
            continue
        value = decode(back, _deref)
        if type(value) is not type(sent):
            continue
        if type(sent) is list or type(sent) is bytearray:
            sent[:] = value
        else:
            sent.clear()
            sent.update(value)
    return decode(reply["ok"], _deref)
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
            base[name] = decode(info.get("v"), _deref)
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
