/**
 * Keyed retries of the session API (`serve --env`): a step carrying `turn`, or a tool call carrying
 * `key`, that is sent again (its client never got the answer: a timeout, a dropped connection, a
 * 5xx) gets the first call's answer and runs nothing again. The till's tool charges a card each
 * time it runs, so a turn applied twice shows as two charges and a turn twice in the transcript.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createRewardServer, type RewardServer } from "../../src/bridge/server.js";
import { sessionRoutes } from "../../src/bridge/sessions.js";
import { createEngine } from "../../src/engine/engine.js";
import { installHookGuard } from "../../src/env/isolation.js";
import { loadEnvironment } from "../../src/env/load.js";
import { createSessionManager } from "../../src/env/sessions.js";
import { till } from "./fixtures/till/hooks.js";

let server: RewardServer;
let url: string;
let releaseGuard: () => void;
const opened: string[] = [];

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any; headers: Headers }> {
  const res = await fetch(url + path, { method, headers: body === undefined ? {} : { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, json: await res.json(), headers: res.headers };
}

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
  const env = await loadEnvironment("tests/bridge/fixtures/till/env.yaml");
  const engine = createEngine({ limits: { maxConcurrency: 2, maxRetries: 0, timeoutMs: 10_000 } });
  const sessions = createSessionManager({ env, engine });
  server = createRewardServer({ rubric: env.rubric, dynamicRoutes: sessionRoutes({ env, sessions, engine }), onClose: () => sessions.closeAll() });
  url = await server.listen(0);
});
afterEach(async () => {
  for (const id of opened.splice(0)) await call("DELETE", `/v1/sessions/${id}`);
});
afterAll(async () => {
  await server.close();
  releaseGuard();
});

describe("a step sent again with its turn", () => {
  it("gets the recorded answer: the tool ran once, the turn is in the transcript once", async () => {
    const id = await openSession();
    const before = till.charges;
    const first = await call("POST", `/v1/sessions/${id}/step`, { ...charge(), turn: 0 });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ turns: 1, messages: [{ role: "tool", content: `charged 1 (charge #${before + 1})` }] });
    const again = await call("POST", `/v1/sessions/${id}/step`, { ...charge(), turn: 0 });
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
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
    expect(till.charges - before).toBe(1);
    expect((await call("POST", `/v1/sessions/${id}/tools/charge`, { arguments: { amount: 3 }, key: "k-2" })).status).toBe(200);
    expect(till.charges - before).toBe(2);
    // A step's key and a tool call's are kept apart: neither replaces the other's record.
    const step = await call("POST", `/v1/sessions/${id}/step`, { ...charge(), turn: 0 });
    expect((await call("POST", `/v1/sessions/${id}/tools/charge`, { arguments: { amount: 3 }, key: "k-2" })).json.result).toMatch(new RegExp(`charge #${before + 2}\\)`));
    expect((await call("POST", `/v1/sessions/${id}/step`, { ...charge(), turn: 0 })).json).toEqual(step.json);
    expect(till.charges - before).toBe(3);
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
