/**
 * examples/trainers/rubricate_env.py's EnvClient (every environment adapter's HTTP client: TRL,
 * OpenRLHF, verl, verifiers) under the answers a proxy or load balancer may put in front of the
 * server (no network: urlopen and sleep are replaced inside the Python process), and against a
 * live server that applies a step but whose answer never reaches the client.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import type { RewardServer } from "../../src/bridge/server.js";
import type { SessionManager } from "../../src/env/sessions.js";
import type { TestServer } from "../../src/testing/servers/openai-server.js";
import { ROOT } from "../helpers/cli.js";
import { needs, which } from "../helpers/system.js";
import { till } from "./fixtures/till/hooks.js";
import { hungUp, serveTill, tillPolicy } from "./fixtures/till/serve.js";

const python = needs("python3", () => which("python3"), "apt-get install python3");

/** 503 with an HTTP-date Retry-After (RFC 9110 allows it), one with a negative number, a 429 with text, then the answer. */
const SCRIPT = String.raw`
import email.message, io, json, sys, urllib.error
sys.path.insert(0, sys.argv[1])
import rubricate_env
sleeps, answers = [], []
rubricate_env.time.sleep = lambda s: sleeps.append(s)
script = [(503, "Wed, 21 Oct 2015 07:28:00 GMT"), (503, "-5"), (429, "soon"), (200, None)]
class Ok:
    def __enter__(self): return self
    def __exit__(self, *a): return False
    def read(self): return b'{"session_id": "s1", "messages": []}'
def urlopen(req, timeout=None):
    status, value = script[len(answers)]
    answers.append(status)
    if status == 200:
        return Ok()
    headers = email.message.Message()
    headers["Retry-After"] = value
    raise urllib.error.HTTPError(req.full_url, status, "busy", headers, io.BytesIO(b'{"error": {"code": "X", "message": "busy"}}'))
rubricate_env.urllib.request.urlopen = urlopen
try:
    out = {"session_id": rubricate_env.EnvClient("http://127.0.0.1:1", retries=4).open(task_index=0)["session_id"]}
except Exception as e:
    out = {"raised": type(e).__name__ + ": " + str(e)}
print(json.dumps({**out, "sleeps": sleeps, "answers": answers}))
`;

python.describe("EnvClient retries (python3)", () => {
  it("a Retry-After that is an HTTP date, negative or text is waited on (or backed off), never a ValueError that ends the run", async () => {
    const { stdout } = await promisify(execFile)(python.path!, ["-c", SCRIPT, join(ROOT, "examples/trainers")], { env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
    // The date is past: no wait; -5: no wait; "soon": the client's own backoff (0.5 s doubled twice).
    expect(JSON.parse(stdout)).toEqual({ session_id: "s1", sleeps: [0, 0, 2], answers: [503, 503, 429, 200] });
  });
});

/**
 * Which failures a call is sent again after, by what it carries: a keyed step or tool call after
 * anything but a final answer; a keyless step only after what surely never ran.
 */
const MODES_SCRIPT = String.raw`
import email.message, http.client, io, json, sys, urllib.error
sys.path.insert(0, sys.argv[1])
import rubricate_env
rubricate_env.time.sleep = lambda s: None
script, sent = [], []
class Ok:
    def __init__(self, body): self.body = body
    def __enter__(self): return self
    def __exit__(self, *a): return False
    def read(self): return json.dumps(self.body).encode()
def answer(status, code="X", headers=()):
    h = email.message.Message()
    for k, v in headers:
        h[k] = v
    return urllib.error.HTTPError("http://x", status, "no", h, io.BytesIO(json.dumps({"error": {"code": code, "message": "m"}}).encode()))
def urlopen(req, timeout=None):
    sent.append(json.loads(req.data) if req.data else None)
    step = script.pop(0)
    if isinstance(step, BaseException):
        raise step
    return Ok(step)
rubricate_env.urllib.request.urlopen = urlopen
def run(name, answers, fn):
    script[:], sent[:] = answers, []
    try:
        result = {"answer": fn()}
    except rubricate_env.RubricateEnvError as e:
        result = {"raised": f"{e.status} {e.code}"}
    out[name] = {**result, "attempts": len(sent), "bodies": list(sent)}
out = {}
c = rubricate_env.EnvClient("http://127.0.0.1:1", retries=4)
refused = urllib.error.URLError(ConnectionRefusedError(111, "refused"))
run("open", [TimeoutError("timed out"), answer(502), {"session_id": "s", "turns": 0}], lambda: c.open(task_index=0)["session_id"])
run("open_mismatch", [answer(409, "KEY_MISMATCH")], lambda: c.open(task_index=1, key="mine"))
run("rollouts", [http.client.RemoteDisconnected("gone"), answer(429, "SESSION_LIMIT"), {"rewards": [1]}], lambda: c.rollouts({"model": "m"}, k=2, task_id="t")["rewards"])
run("keyed_lost_then_busy", [TimeoutError("timed out"), answer(409, "SESSION_BUSY"), {"turns": 1}], lambda: c.step("s", "hi")["turns"])
run("keyed_next_turn", [http.client.RemoteDisconnected("gone"), answer(502), {"turns": 2}], lambda: c.step("s", "again")["turns"])
run("keyed_replayed_failure", [answer(500, "HOOK_FAILED", [("Idempotent-Replayed", "true")])], lambda: c.step("s", "x"))
run("keyed_mismatch", [answer(409, "TURN_MISMATCH")], lambda: c.step("s", "x"))
run("tool", [TimeoutError("timed out"), answer(503), {"result": "ok"}], lambda: c.call_tool("s", "charge", {"amount": 1})["result"])
run("close", [{"closed": True}], lambda: c.close("s"))
run("keyless_unsent", [refused, answer(429), answer(503, "SHUTTING_DOWN", [("Retry-After", "0")]), {"turns": 1}], lambda: c.step("s", "hi")["turns"])
run("keyless_500", [answer(500, "HOOK_FAILED")], lambda: c.step("s", "hi"))
run("keyless_503", [answer(503, "SHUTTING_DOWN")], lambda: c.step("s", "hi"))
run("keyless_lost", [http.client.RemoteDisconnected("gone")], lambda: c.step("s", "hi"))
# TRL's environment: a step the session refuses as out of turn fails the episode (its reward None), not only the call.
class Trl(rubricate_env._SessionEnvironment):
    _client = c
trl = Trl()
trl._session = {"session_id": "t"}
c._turns["t"] = 3
def trl_reply():
    try:
        trl._reply("hello")
    except rubricate_env.RubricateEnvError as e:
        return {"raised": e.code, "failed": trl._failure is not None, "session": trl._session}
run("trl_mismatch", [answer(409, "TURN_MISMATCH"), {"closed": True}], trl_reply)
print(json.dumps(out))
`;

python.describe("EnvClient retry rules by key (python3)", () => {
  it("sends a keyed step or tool call again after a lost answer, a 5xx or SESSION_BUSY, a keyless step only after what never ran", async () => {
    const { stdout } = await promisify(execFile)(python.path!, ["-c", MODES_SCRIPT, join(ROOT, "examples/trainers")], { env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
    const out = JSON.parse(stdout);
    // An open and a rollouts request each carry a fresh key, the same on every copy of it, and are sent again after a lost answer.
    expect(out.open).toMatchObject({ answer: "s", attempts: 3 });
    expect(out.open.bodies[0]).toEqual({ task_index: 0, key: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(new Set(out.open.bodies.map((b: { key: string }) => b.key)).size).toBe(1);
    expect(out.open_mismatch).toMatchObject({ raised: "409 KEY_MISMATCH", attempts: 1, bodies: [{ task_index: 1, key: "mine" }] });
    expect(out.rollouts).toMatchObject({ answer: [1], attempts: 3 });
    expect(out.rollouts.bodies[0]).toEqual({ task_id: "t", k: 2, policy: { model: "m" }, key: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(new Set(out.rollouts.bodies.map((b: { key: string }) => b.key)).size).toBe(1);
    expect(out.rollouts.bodies[0].key).not.toBe(out.open.bodies[0].key);
    // The session this client opened: each step carries the turn the last answer gave, the same on every copy.
    expect(out.keyed_lost_then_busy).toEqual({ answer: 1, attempts: 3, bodies: Array(3).fill({ content: "hi", turn: 0 }) });
    expect(out.keyed_next_turn).toMatchObject({ answer: 2, attempts: 3, bodies: Array(3).fill({ content: "again", turn: 1 }) });
    // A failure the server replays is final; a 409 other than SESSION_BUSY is not retried.
    expect(out.keyed_replayed_failure).toMatchObject({ raised: "500 HOOK_FAILED", attempts: 1 });
    expect(out.keyed_mismatch).toMatchObject({ raised: "409 TURN_MISMATCH", attempts: 1 });
    expect(out.tool.answer).toBe("ok");
    expect(out.tool.attempts).toBe(3);
    expect(new Set(out.tool.bodies.map((b: { key: string }) => b.key)).size).toBe(1);
    expect(out.tool.bodies[0].key).toMatch(/^[0-9a-f]{32}$/);
    // Closed: the client no longer knows the turn, and the step goes without one.
    expect(out.keyless_unsent).toEqual({ answer: 1, attempts: 4, bodies: Array(4).fill({ content: "hi" }) });
    expect(out.keyless_500).toMatchObject({ raised: "500 HOOK_FAILED", attempts: 1 });
    expect(out.keyless_503).toMatchObject({ raised: "503 SHUTTING_DOWN", attempts: 1 });
    expect(out.keyless_lost).toMatchObject({ raised: "0 NO_ANSWER", attempts: 1 });
    expect(out.trl_mismatch.answer).toEqual({ raised: "TURN_MISMATCH", failed: true, session: null });
  });
});

/**
 * A step whose answer never reaches the client: the server applies it (the till charges), but
 * holds the answer until the client's request timed out and hung up. The client either sends it
 * again with its turn (answered from the record) or, keyless, not at all.
 */
const STEP_SCRIPT = String.raw`
import json, sys
sys.path.insert(0, sys.argv[1])
import rubricate_env
url, keyed = sys.argv[2], sys.argv[3] == "keyed"
opener = rubricate_env.EnvClient(url, retries=0)
sid = opener.open(task_index=0)["session_id"]
# The keyed client opened the session, so it knows its turn; the other one did not.
client = opener if keyed else rubricate_env.EnvClient(url)
client.timeout, client.retries = 1.0, 6
call = [{"id": "c1", "name": "charge", "arguments": {"amount": 2}}]
try:
    out = {"answer": client.step(sid, "Charging.", call)}
except rubricate_env.RubricateEnvError as e:
    out = {"raised": {"status": e.status, "code": e.code, "message": str(e)}}
print(json.dumps({**out, "session_id": sid}))
`;

python.describe("EnvClient steps whose answer was lost (python3, a live server)", () => {
  let server: RewardServer;
  let url: string;
  let stepRequests = 0;
  let sessions: SessionManager;
  beforeAll(async () => {
    // The first step's tool charges, then its answer waits until the client hung up (its timeout).
    ({ server, url, sessions } = await serveTill({
      intercept: (route, _method, path) =>
        !path.endsWith("/step")
          ? route
          : {
              ...route,
              handle: (body: unknown, signal: AbortSignal) => {
                if (++stepRequests === 1) till.hold = () => hungUp(signal);
                return route.handle(body, signal);
              },
            },
    }));
  });
  beforeEach(() => {
    stepRequests = 0;
  });
  afterEach(() => {
    till.hold = () => Promise.resolve();
  });
  afterAll(() => server.close());

  const play = async (mode: "keyed" | "keyless") => {
    const { stdout } = await promisify(execFile)(python.path!, ["-c", STEP_SCRIPT, join(ROOT, "examples/trainers"), url, mode], { env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
    return JSON.parse(stdout) as { answer?: { messages: { content: string }[]; turns: number }; raised?: { status: number; code: string; message: string }; session_id: string };
  };
  const turnsOf = (id: string) => sessions.use(id, async (ep) => ({ turns: ep.turns, assistant: ep.messages.filter((m) => m.role === "assistant").length }), 0, true);

  it("sends the step again with its turn: the answer comes from the record, the tool ran once", async () => {
    const before = till.charges;
    const out = await play("keyed");
    expect(out.raised).toBeUndefined();
    expect(out.answer).toMatchObject({ turns: 1, messages: [{ content: `charged 2 (charge #${before + 1})` }] });
    expect(stepRequests).toBeGreaterThanOrEqual(2);
    expect(till.charges - before).toBe(1);
    expect(await turnsOf(out.session_id)).toEqual({ turns: 1, assistant: 1 });
  });

  it("without a key, does not send a step again after its request timed out (it may have run)", async () => {
    const before = till.charges;
    const out = await play("keyless");
    expect(out.raised).toMatchObject({ status: 0, code: "NO_ANSWER", message: expect.stringMatching(/without a key it could run twice/) });
    expect(stepRequests).toBe(1);
    // It had run: sending it again would have charged twice.
    expect(till.charges - before).toBe(1);
    expect(await turnsOf(out.session_id)).toEqual({ turns: 1, assistant: 1 });
  });
});

/**
 * An open, and a rollouts request, whose answer never reaches the client: the server opens the
 * session (plays the rollouts) but the answer comes only after the client's request timed out and
 * it hung up. The client sends it again with the same key and gets the first one's session (its
 * rollouts); the server holds one session (played them once).
 */
const LOST_SCRIPT = String.raw`
import json, sys
sys.path.insert(0, sys.argv[1])
import rubricate_env
url, what, policy_url = sys.argv[2], sys.argv[3], sys.argv[4]
client = rubricate_env.EnvClient(url, timeout=1.0, retries=6)
try:
    if what == "open":
        out = {"answer": client.open(task_index=0)}
    else:
        out = {"answer": client.rollouts({"base_url": policy_url, "model": "till-agent"}, k=1, task_index=0)}
except rubricate_env.RubricateEnvError as e:
    out = {"raised": {"status": e.status, "code": e.code, "message": str(e)}}
print(json.dumps(out))
`;

python.describe("EnvClient opens and rollouts whose answer was lost (python3, a live server)", () => {
  let server: RewardServer;
  let url: string;
  let sessions: SessionManager;
  let policy: TestServer<unknown>;
  let policyCalls = 0;
  /** The signals of the open and rollouts requests the server handled, in order. */
  const requests: Record<string, AbortSignal[]> = { "/v1/sessions": [], "/v1/rollouts": [] };

  beforeAll(async () => {
    // The policy's first answer of the first rollouts request waits until that request's client hung up.
    policy = await tillPolicy(5, async () => {
      if (++policyCalls === 1) await hungUp(requests["/v1/rollouts"][0]);
    });
    // The first open runs to its end (the session is open), then its answer waits until the client hung up.
    ({ server, url, sessions } = await serveTill({
      allowPolicyHosts: [new URL(policy.url).host],
      intercept: (route, method, path) =>
        method !== "POST" || !(path in requests)
          ? route
          : {
              ...route,
              handle: async (body: unknown, signal: AbortSignal) => {
                const first = requests[path].push(signal) === 1;
                const answer = await route.handle(body, signal);
                if (first && path === "/v1/sessions") await hungUp(signal);
                return answer;
              },
            },
    }));
  });
  afterAll(async () => {
    await server.close();
    await policy.close();
  });

  const play = async (what: "open" | "rollouts") => {
    const { stdout } = await promisify(execFile)(python.path!, ["-c", LOST_SCRIPT, join(ROOT, "examples/trainers"), url, what, policy.url], { env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
    return JSON.parse(stdout) as { answer?: any; raised?: { status: number; code: string; message: string } };
  };

  it("sends the open again with its key: the session the first copy opened, and no second one", async () => {
    const out = await play("open");
    expect(out.raised).toBeUndefined();
    expect(requests["/v1/sessions"].length).toBeGreaterThanOrEqual(2);
    expect(sessions.stats()).toMatchObject({ open: 1, opened: 1 });
    // The one session is the client's: it can step it.
    await expect(sessions.use(out.answer.session_id, async (ep) => ep.turns, 0, true)).resolves.toBe(0);
    sessions.closeAll();
  });

  it("sends the rollouts request again with its key: the first copy's rollouts, played once", async () => {
    const charges = till.charges;
    const tills = till.opened;
    const out = await play("rollouts");
    expect(out.raised).toBeUndefined();
    expect(out.answer.rewards).toEqual([1]);
    expect(out.answer.rollouts[0].messages).toContainEqual(expect.objectContaining({ role: "tool", content: expect.stringMatching(/^charged 5/) }));
    expect(requests["/v1/rollouts"].length).toBeGreaterThanOrEqual(2);
    // One rollout: a turn that charges, a turn that says done.
    expect(policyCalls).toBe(2);
    expect(till.charges - charges).toBe(1);
    expect(till.opened - tills).toBe(1);
  });
});
