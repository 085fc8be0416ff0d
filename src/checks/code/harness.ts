/**
 * The programs that run a solution against its tests, one result line per test. A result line
 * starts with a nonce the harness read from stdin before the solution ran, so text the solution
 * prints cannot pass for a result. (Code in the same process could still dig the nonce out of
 * memory or patch the harness; the sandbox, not this, is the security boundary.)
 */

/** Python 3 (stdlib only). Tests are assert scripts (MBPP), `def test_*` functions (pytest style), or a HumanEval `check(candidate)`. */
export const PYTHON_HARNESS = String.raw`
import sys, json, io, contextlib, traceback, signal
job = json.loads(sys.stdin.read())
nonce = job.pop("nonce")
out = sys.stdout
def emit(record):
    out.write(nonce + " " + json.dumps(record) + "\n")
    out.flush()
def describe(e):
    tb = traceback.extract_tb(e.__traceback__)
    where = ""
    for frame in reversed(tb):
        if frame.filename.startswith("<test") or frame.filename == "solution.py":
            line = (frame.line or "").strip()
            if not line and frame.filename.startswith("<test"):
                lines = job["tests"][int(frame.filename.strip("<>").split()[1]) - 1].splitlines()
                line = lines[frame.lineno - 1].strip() if 0 < frame.lineno <= len(lines) else ""
            where = " (%s line %d: %s)" % (frame.filename.strip("<>"), frame.lineno, line)
            break
    text = "%s: %s" % (type(e).__name__, e) if str(e) else type(e).__name__
    return (text + where)[:2000]
class TestTimeout(BaseException):
    pass
def on_alarm(signum, frame):
    raise TestTimeout("the test ran past %ss" % job["per_test_s"])
signal.signal(signal.SIGALRM, on_alarm)
namespace = {"__name__": "__main__"}
captured = io.StringIO()
try:
    with contextlib.redirect_stdout(captured):
        signal.alarm(job["per_test_s"])
        exec(compile(open("solution.py").read(), "solution.py", "exec"), namespace)
        signal.alarm(0)
except BaseException as e:
    signal.alarm(0)
    emit({"load_error": describe(e)})
    sys.exit(0)
for index, test in enumerate(job["tests"]):
    env = dict(namespace)
    try:
        with contextlib.redirect_stdout(captured):
            signal.alarm(job["per_test_s"])
            exec(compile(test, "<test %d>" % (index + 1), "exec"), env)
            for name, value in list(env.items()):
                if name.startswith("test_") and callable(value) and name not in namespace:
                    value()
            entry = job.get("entry_point")
            if entry and callable(env.get("check")) and env.get("check") is not namespace.get("check"):
                env["check"](env[entry])
            signal.alarm(0)
        emit({"test": index, "ok": True})
    except BaseException as e:
        signal.alarm(0)
        emit({"test": index, "ok": False, "error": describe(e)})
emit({"done": True})
`;

/** Node. Tests are scripts using `assert` (node:assert) against the solution's functions, run in one context. */
export const NODE_HARNESS = String.raw`
const fs = require("node:fs");
const vm = require("node:vm");
const assert = require("node:assert");
const job = JSON.parse(fs.readFileSync(0, "utf8"));
const nonce = job.nonce;
delete job.nonce;
const write = process.stdout.write.bind(process.stdout);
const emit = (record) => write(nonce + " " + JSON.stringify(record) + "\n");
const describe = (e) => String(e && typeof e === "object" && "message" in e ? (e.name || "Error") + ": " + String(e.message).split("\n").filter(Boolean).join(" ") : e).slice(0, 2000);
const silent = { log() {}, info() {}, warn() {}, error() {}, debug() {} };
const module_ = { exports: {} };
const context = vm.createContext({ assert, console: silent, module: module_, exports: module_.exports, require: (name) => (name === "assert" || name === "node:assert" ? assert : require(name)) });
const limit = { timeout: job.per_test_s * 1000 };
try {
  vm.runInContext(fs.readFileSync("solution.js", "utf8"), context, { filename: "solution.js", ...limit });
  Object.assign(context, module_.exports, context.module.exports);
} catch (e) {
  emit({ load_error: describe(e) });
  process.exit(0);
}
job.tests.forEach((test, index) => {
  try {
    vm.runInContext(test, context, { filename: "test " + (index + 1), ...limit });
    emit({ test: index, ok: true });
  } catch (e) {
    emit({ test: index, ok: false, error: describe(e) });
  }
});
emit({ done: true });
`;
