/**
 * Keyed retries of the session API (`serve --env`): a step carrying `turn`, or a tool call, open
 * or rollouts request carrying `key`, that is sent again (its client never got the answer: a
 * timeout, a dropped connection, a 5xx) gets the first call's answer and runs nothing again. The
 * till's tool charges a card each time it runs, so a turn applied twice shows as two charges and a
 * turn twice in the transcript; its setup counts the tills opened (sessions and rollouts).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RewardServer } from "../../src/bridge/server.js";
import { installHookGuard } from "../../src/env/isolation.js";
import type { TestServer } from "../../src/testing/servers/openai-server.js";
import { till } from "./fixtures/till/hooks.js";
import { serveTill, tillPolicy } from "./fixtures/till/serve.js";

let server: RewardServer;
let url: string;
let releaseGuard: () => void;
const opened: string[] = [];

/** The trainer's policy for /v1/rollouts: charges once, then says done; each call counted, and held while `policyGate` is set. */
let policy: TestServer<unknown>;
let policyCalls = 0;
let policyGate: Promise<void> | undefined;
/**
 * The signal of each open and rollouts request the server handled, by path, in order: a test sees
 * that a copy reached the route (where a keyed copy finds the first one at once), and when the
 * server knew a client hung up.
 */
const handled: Record<string, AbortSignal[]> = { "/v1/sessions": [], "/v1/rollouts": [] };

async function call(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<{ status: number; json: any; headers: Headers }> {
  const res = await fetch(url + path, { method, headers: body === undefined ? {} : { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body), signal });
  return { status: res.status, json: await res.json(), headers: res.headers };
}

const waitFor = async (done: () => boolean) => {
  while (!done()) await new Promise((r) => setTimeout(r, 5));
};

async function openSession(): Promise<string> {
  const res = await call("POST", "/v1/sessions", { task_index: 0 });
  expect(res.status).toBe(200);
  opened.push(res.json.session_id);
  return res.json.session_id;
}

const charge = (args: Record<string, unknown> = {}) => ({ content: "Charging.", tool_calls: [{ id: "c1", name: "charge", arguments: args }] });
const assistantTurns = async (id: string) => ((await call("GET", `/v1/sessions/${id}`)).json.messages as { role: string }[]).filter((m) => m.role === "assistant").length;

beforeAll(async () => {
  // The fault fixture calls process.exit inside a hook: the guard serve installs turns it into the episode's failure.
  releaseGuard = installHookGuard();
  policy = await tillPolicy(4, async () => {
    policyCalls++;
    await policyGate;
  });
  ({ server, url } = await serveTill({
    allowPolicyHosts: [new URL(policy.url).host],
    intercept: (route, method, path) =>
      method !== "POST" || !(path in handled) ? route : { ...route, handle: (body: unknown, signal: AbortSignal) => (handled[path].push(signal), route.handle(body, signal)) },
  }));
});
afterEach(async () => {
  for (const id of opened.splice(0)) await call("DELETE", `/v1/sessions/${id}`);
});
afterAll(async () => {
  await server.close();
  await policy.close();
  releaseGuard();
});

describe("a step sent again with its turn", () => {
  it("gets the recorded answer: the tool ran once, the turn is in the transcript once", async () => {
    const id = await openSession();
    const before = till.charges;
    const first = await call("POST", `/v1/sessions/${id}/step`, { ...charge(), turn: 0 });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ turns: 1, messages: [{ role: "tool", content: `charged 1 (charge #${before + 1})` }] });
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await call("POST", `/v1/sessions/${id}/step`, { ...charge(), turn: 0 });
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(till.charges - before).toBe(1);
    expect(await assistantTurns(id)).toBe(1);
    // The session goes on from there; the next step is keyed by the next turn.
    const next = await call("POST", `/v1/sessions/${id}/step`, { content: "done", turn: 1 });
    expect(next.status).toBe(200);
    expect(next.json.turns).toBe(2);
  });

  it("that failed after its turn was recorded gets the same failure, marked replayed, and nothing runs again", async () => {
    const id = await openSession();
    const before = till.charges;
    const first = await call("POST", `/v1/sessions/${id}/step`, { ...charge({ fault: true }), turn: 0 });
    expect(first.status).toBe(500);
    expect(first.json.error).toMatchObject({ code: "HOOK_FAILED", message: expect.stringMatching(/process\.exit\(9\)/) });
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await call("POST", `/v1/sessions/${id}/step`, { ...charge({ fault: true }), turn: 0 });
    expect(again.status).toBe(500);
    expect(again.json).toEqual(first.json);
    // The mark tells a client that retrying is pointless: this failure is final.
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(till.charges - before).toBe(1);
    expect(await assistantTurns(id)).toBe(1);
  });

  it("is a replay only for the same step: another step at a turn already taken is a 409 TURN_MISMATCH, and runs nothing", async () => {
    const id = await openSession();
    expect((await call("POST", `/v1/sessions/${id}/step`, { ...charge({ amount: 5 }), turn: 0 })).status).toBe(200);
    const before = till.charges;
    // The trainer regenerated turn 0 (it never saw the first answer): that turn is gone.
    const other = await call("POST", `/v1/sessions/${id}/step`, { ...charge({ amount: 7 }), turn: 0 });
    expect(other.status).toBe(409);
    expect(other.json.error).toMatchObject({ code: "TURN_MISMATCH", field: "turn", message: expect.stringMatching(/is at turn 1, and this step says turn 0: it already took that turn/) });
    expect(till.charges).toBe(before);
    expect(await assistantTurns(id)).toBe(1);
  });

  it("with a turn the session has not reached is a 409 TURN_MISMATCH; nothing is applied, and the right turn still works", async () => {
    const id = await openSession();
    const before = till.charges;
    const ahead = await call("POST", `/v1/sessions/${id}/step`, { ...charge(), turn: 2 });
    expect(ahead.status).toBe(409);
    expect(ahead.json.error).toMatchObject({ code: "TURN_MISMATCH", message: expect.stringMatching(/is at turn 0, and this step says turn 2: it has not taken the turns before it/) });
    expect(till.charges).toBe(before);
    expect(await assistantTurns(id)).toBe(0);
    expect((await call("POST", `/v1/sessions/${id}/step`, { ...charge(), turn: 0 })).status).toBe(200);
    expect(till.charges - before).toBe(1);
  });

  it("is refused while the first still runs (SESSION_BUSY), then answered from the record once it is done", async () => {
    const id = await openSession();
    const before = till.charges;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    till.hold = () => held;
    try {
      const first = call("POST", `/v1/sessions/${id}/step`, { ...charge(), turn: 0 });
      while (till.charges === before) await new Promise((r) => setTimeout(r, 5));
      const during = await call("POST", `/v1/sessions/${id}/step`, { ...charge(), turn: 0 });
      expect(during.status).toBe(409);
      expect(during.json.error.code).toBe("SESSION_BUSY");
      release();
      const answered = await first;
      const after = await call("POST", `/v1/sessions/${id}/step`, { ...charge(), turn: 0 });
      expect(after.json).toEqual(answered.json);
    } finally {
      till.hold = () => Promise.resolve();
    }
    expect(till.charges - before).toBe(1);
  });

  it("without a turn is applied again: only a key makes a retry safe", async () => {
    const id = await openSession();
    const before = till.charges;
    await call("POST", `/v1/sessions/${id}/step`, charge());
    await call("POST", `/v1/sessions/${id}/step`, charge());
    expect(till.charges - before).toBe(2);
    expect(await assistantTurns(id)).toBe(2);
  });
});

describe("a tool call sent again with its key", () => {
  it("gets the recorded result and runs once; a new key (or none) is a new call", async () => {
    const id = await openSession();
    const before = till.charges;
    const first = await call("POST", `/v1/sessions/${id}/tools/charge`, { arguments: { amount: 3 }, key: "k-1" });
    expect(first.status).toBe(200);
    const again = await call("POST", `/v1/sessions/${id}/tools/charge`, { arguments: { amount: 3 }, key: "k-1" });
    expect(again.json).toEqual(first.json);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(till.charges - before).toBe(1);
    expect((await call("POST", `/v1/sessions/${id}/tools/charge`, { arguments: { amount: 3 }, key: "k-2" })).status).toBe(200);
    expect(till.charges - before).toBe(2);
    // A step's key and a tool call's are kept apart: neither replaces the other's record.
    const step = await call("POST", `/v1/sessions/${id}/step`, { ...charge(), turn: 0 });
    expect((await call("POST", `/v1/sessions/${id}/tools/charge`, { arguments: { amount: 3 }, key: "k-2" })).json.result).toMatch(new RegExp(`charge #${before + 2}\\)`));
    expect((await call("POST", `/v1/sessions/${id}/step`, { ...charge(), turn: 0 })).json).toEqual(step.json);
    expect(till.charges - before).toBe(3);
  });

  it("with another call is a 409 KEY_MISMATCH and runs nothing, as the session's last call or an earlier one", async () => {
    const id = await openSession();
    const before = till.charges;
    const first = await call("POST", `/v1/sessions/${id}/tools/charge`, { arguments: { amount: 3 }, key: "k-a" });
    expect(first.status).toBe(200);
    for (const other of [{ arguments: { amount: 300 } }, { arguments: { amount: 3 }, id: "another-id" }]) {
      const res = await call("POST", `/v1/sessions/${id}/tools/charge`, { ...other, key: "k-a" });
      expect(res.status).toBe(409);
      expect(res.json.error).toMatchObject({ code: "KEY_MISMATCH", message: expect.stringMatching(/^tool-call key "k-a" came first in session "[^"]+" with another call: a retry must send the same call/) });
    }
    expect(till.charges - before).toBe(1);
    // Another key between: "k-a" is no longer the last, and is still its own call's key only.
    expect((await call("POST", `/v1/sessions/${id}/tools/charge`, { arguments: { amount: 5 }, key: "k-b" })).status).toBe(200);
    const reused = await call("POST", `/v1/sessions/${id}/tools/charge`, { arguments: { amount: 7 }, key: "k-a" });
    expect(reused.status).toBe(409);
    expect(reused.json.error.code).toBe("KEY_MISMATCH");
    // …and a retry of it, sent late, gets its own answer back.
    const late = await call("POST", `/v1/sessions/${id}/tools/charge`, { arguments: { amount: 3 }, key: "k-a" });
    expect(late.json).toEqual(first.json);
    expect(late.headers.get("idempotent-replayed")).toBe("true");
    expect(till.charges - before).toBe(2);
    const calls = ((await call("GET", `/v1/sessions/${id}`)).json.messages as { role: string }[]).filter((m) => m.role === "tool");
    expect(calls).toHaveLength(2);
  });

  it("refuses a key that is not a short string (a 400 naming it)", async () => {
    const id = await openSession();
    const res = await call("POST", `/v1/sessions/${id}/tools/charge`, { arguments: {}, key: "k".repeat(129) });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.json.error)).toMatch(/key/);
    const turn = await call("POST", `/v1/sessions/${id}/step`, { content: "x", turn: -1 });
    expect(turn.status).toBe(400);
    expect(JSON.stringify(turn.json.error)).toMatch(/turn/);
  });
});

describe("an open sent again with its key", () => {
  const openKeyed = async (key: string, ref: Record<string, unknown> = { task_index: 0 }) => {
    const res = await call("POST", "/v1/sessions", { ...ref, key });
    if (res.status === 200) opened.push(res.json.session_id);
    return res;
  };
  const openCount = async () => (await call("GET", "/v1/sessions")).json.open as number;

  it("gets the same session's answer, marked replayed: one session open, one till", async () => {
    const before = till.opened;
    const first = await openKeyed("open-a");
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await openKeyed("open-a");
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(till.opened - before).toBe(1);
    expect(await openCount()).toBe(1);
  });

  it("while the first copy is still opening waits for it, and opens no second session", async () => {
    const before = till.opened;
    let release!: () => void;
    till.holdOpen = () => new Promise<void>((r) => (release = r));
    try {
      const first = openKeyed("open-slow");
      await waitFor(() => till.opened > before);
      const seen = handled["/v1/sessions"].length;
      const again = openKeyed("open-slow");
      // The copy reached the route while the first still opens (a second open would start its setup here).
      await waitFor(() => handled["/v1/sessions"].length > seen);
      release();
      const [a, b] = await Promise.all([first, again]);
      expect(a.status).toBe(200);
      expect(b.json).toEqual(a.json);
      expect(b.headers.get("idempotent-replayed")).toBe("true");
    } finally {
      till.holdOpen = () => Promise.resolve();
    }
    expect(till.opened - before).toBe(1);
    expect(await openCount()).toBe(1);
  });

  it("with another request is a 409 KEY_MISMATCH, and opens nothing", async () => {
    expect((await openKeyed("open-b", { task_index: 0 })).status).toBe(200);
    const before = till.opened;
    const other = await openKeyed("open-b", { task_id: "t1" });
    expect(other.status).toBe(409);
    expect(other.json.error).toMatchObject({ code: "KEY_MISMATCH", message: expect.stringMatching(/came first with another request/) });
    expect(till.opened).toBe(before);
    expect(await openCount()).toBe(1);
  });

  it("after its session closed is a new open: keys live as long as their sessions", async () => {
    const first = await openKeyed("open-c");
    expect((await call("DELETE", `/v1/sessions/${first.json.session_id}`)).json.closed).toBe(true);
    const again = await openKeyed("open-c");
    expect(again.status).toBe(200);
    expect(again.json.session_id).not.toBe(first.json.session_id);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
  });

  it("refuses a key that is not a short string (a 400 naming it)", async () => {
    const res = await call("POST", "/v1/sessions", { task_index: 0, key: "k".repeat(129) });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.json.error)).toMatch(/key/);
  });
});

describe("a rollouts request sent again with its key", () => {
  const body = (key: string, extra: Record<string, unknown> = {}) => ({ task_index: 0, k: 1, policy: { base_url: policy.url, model: "till-agent", ...extra }, key });

  it("gets the recorded answer, marked replayed: the policy is asked and the till charged once", async () => {
    const calls = policyCalls;
    const charges = till.charges;
    const first = await call("POST", "/v1/rollouts", body("roll-a"));
    expect(first.status).toBe(200);
    expect(first.json.rewards).toEqual([1]);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await call("POST", "/v1/rollouts", body("roll-a"));
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    // One rollout: a turn that charges, a turn that says done.
    expect(policyCalls - calls).toBe(2);
    expect(till.charges - charges).toBe(1);
  });

  it("after its client hung up mid-play, plays on and answers the retry: nothing played twice", async () => {
    const calls = policyCalls;
    const charges = till.charges;
    const tills = till.opened;
    let release!: () => void;
    policyGate = new Promise<void>((r) => (release = r));
    try {
      const hangUp = new AbortController();
      const first = call("POST", "/v1/rollouts", body("roll-b"), hangUp.signal).catch((e: Error) => e);
      await waitFor(() => policyCalls > calls);
      const signals = handled["/v1/rollouts"];
      const seen = signals.length;
      hangUp.abort();
      expect(await first).toBeInstanceOf(Error);
      // The server has seen the client go before the policy answers.
      await waitFor(() => signals[seen - 1].aborted);
      const retry = call("POST", "/v1/rollouts", body("roll-b"));
      await waitFor(() => signals.length > seen);
      release();
      const answered = await retry;
      expect(answered.status).toBe(200);
      expect(answered.json.rewards).toEqual([1]);
      expect(answered.headers.get("idempotent-replayed")).toBe("true");
    } finally {
      policyGate = undefined;
    }
    expect(policyCalls - calls).toBe(2);
    expect(till.charges - charges).toBe(1);
    expect(till.opened - tills).toBe(1);
  });

  it("with another request is a 409 KEY_MISMATCH, and plays nothing", async () => {
    expect((await call("POST", "/v1/rollouts", body("roll-c"))).status).toBe(200);
    const calls = policyCalls;
    const other = await call("POST", "/v1/rollouts", body("roll-c", { temperature: 0.3 }));
    expect(other.status).toBe(409);
    expect(other.json.error).toMatchObject({ code: "KEY_MISMATCH", message: expect.stringMatching(/a retry must send the same request/) });
    expect(policyCalls).toBe(calls);
  });

  it("without a key plays again: only a key makes a retry safe", async () => {
    const calls = policyCalls;
    const { key: _key, ...keyless } = body("unused");
    expect((await call("POST", "/v1/rollouts", keyless)).status).toBe(200);
    expect((await call("POST", "/v1/rollouts", keyless)).status).toBe(200);
    expect(policyCalls - calls).toBe(4);
  });
});
