import { beforeAll, describe, expect, it } from "vitest";
import { createEngine } from "../../src/engine/engine.js";
import { RubricateError } from "../../src/errors.js";
import { loadEnvironment } from "../../src/env/load.js";
import { createSessionManager, taskFromRef } from "../../src/env/sessions.js";
import type { Environment } from "../../src/env/types.js";

let env: Environment;
const engine = createEngine({ limits: { maxConcurrency: 2, maxRetries: 0, timeoutMs: 10_000 } });
beforeAll(async () => {
  env = await loadEnvironment("examples/support-desk/env.yaml");
});

describe("session manager", () => {
  it("closes sessions idle past the limit, never one with a call in progress", async () => {
    let now = 0;
    const sessions = createSessionManager({ env, engine, idleMs: 1000, now: () => now });
    const idle = await sessions.open({ task_index: 0 });
    const busy = await sessions.open({ task_index: 1 });
    let release!: () => void;
    const running = sessions.use(busy.id, () => new Promise<void>((r) => (release = r)));
    now = 5000;
    expect(sessions.sweep()).toBe(1);
    expect(idle.episode.closed).toBe(true);
    expect(busy.episode.closed).toBe(false);
    await expect(sessions.use(idle.id, async () => 1)).rejects.toMatchObject({ code: "SESSION_NOT_FOUND", message: expect.stringMatching(/expired after 1 s idle/) });
    release();
    await running;
    // The call ended at t=5000: the session is fresh again.
    expect(sessions.sweep()).toBe(0);
    now = 7000;
    expect(sessions.sweep()).toBe(1);
    expect(sessions.stats()).toMatchObject({ open: 0, opened: 2, closed: 2, expired: 2 });
  });

  // Ran both: a retried step's tool calls twice (a refund issued twice), the two turns interleaved.
  it("runs one changing call at a time in a session (SESSION_BUSY beside it); reads, and other sessions, go on", async () => {
    const sessions = createSessionManager({ env, engine });
    const a = await sessions.open({ task_index: 0 });
    const b = await sessions.open({ task_index: 1 });
    let release!: () => void;
    const step = sessions.use(a.id, () => new Promise<string>((r) => (release = () => r("first"))), 10);
    await expect(sessions.use(a.id, async () => "second", 10)).rejects.toMatchObject({ code: "SESSION_BUSY", message: expect.stringMatching(/one at a time/) });
    await expect(sessions.use(a.id, async () => "look", 0, true)).resolves.toBe("look");
    await expect(sessions.use(b.id, async () => "other")).resolves.toBe("other");
    release();
    await expect(step).resolves.toBe("first");
    await expect(sessions.use(a.id, async () => "after")).resolves.toBe("after");
    sessions.closeAll();
  });

  it("runs a keyed call once: the same key and request get its outcome again, nothing run or charged twice", async () => {
    const sessions = createSessionManager({ env, engine });
    const a = await sessions.open({ task_index: 0 });
    let runs = 0;
    const key = { kind: "step" as const, key: "0", request: '{"content":"hi"}' };
    const first = await sessions.useOnce(a.id, key, async () => `answer ${++runs}`, { bytes: 100 });
    expect(first).toEqual({ ok: true, value: "answer 1", replayed: false });
    expect(sessions.stats().bytes).toBe(100);
    expect(await sessions.useOnce(a.id, key, async () => `answer ${++runs}`, { bytes: 100 })).toEqual({ ok: true, value: "answer 1", replayed: true });
    expect(runs).toBe(1);
    expect(sessions.stats().bytes).toBe(100);
    // The same key asking something else is not a retry: `admit` judges it (here: refuses it), nothing recorded.
    const refuse = () => {
      throw new RubricateError("BAD_INPUT", "not this one");
    };
    await expect(sessions.useOnce(a.id, { ...key, request: '{"content":"bye"}' }, async () => `answer ${++runs}`, { admit: refuse })).rejects.toMatchObject({ message: "not this one" });
    expect((await sessions.useOnce(a.id, key, async () => `answer ${++runs}`)).replayed).toBe(true);
    // A failure is recorded too, and given back as it was.
    const tool = { kind: "tool" as const, key: "k", request: "{}" };
    const failed = await sessions.useOnce(a.id, tool, async () => {
      runs++;
      throw new RubricateError("HOOK_FAILED", "the hook broke after the tool ran");
    });
    expect(failed).toMatchObject({ ok: false, replayed: false, error: { code: "HOOK_FAILED" } });
    expect(await sessions.useOnce(a.id, tool, async () => `answer ${++runs}`)).toMatchObject({ ok: false, replayed: true, error: { code: "HOOK_FAILED" } });
    expect(runs).toBe(2);
    // Every tool-call key is kept (a step's: the last turn's), each charged to the session's budget:
    // an earlier key comes back with its own call only, however many calls came since.
    const bytes = sessions.stats().bytes;
    await sessions.useOnce(a.id, { ...tool, key: "k2" }, async () => `answer ${++runs}`);
    expect(sessions.stats().bytes - bytes).toBe(2 + 128);
    expect(await sessions.useOnce(a.id, tool, async () => `answer ${++runs}`)).toMatchObject({ ok: false, replayed: true, error: { code: "HOOK_FAILED" } });
    await expect(sessions.useOnce(a.id, { ...tool, request: '{"other":1}' }, async () => `answer ${++runs}`)).rejects.toMatchObject({ code: "KEY_MISMATCH", message: expect.stringContaining('tool-call key "k" came first') });
    expect(runs).toBe(3);
    expect((await sessions.useOnce(a.id, key, async () => `answer ${++runs}`)).replayed).toBe(true);
    sessions.closeAll();
  });

  it("charges each kept tool-call key to the session's byte budget: tiny keyed calls fill the session, not the server", async () => {
    const sessions = createSessionManager({ env, engine, maxSessionBytes: 400 });
    const a = await sessions.open({ task_index: 0 });
    for (const k of ["k0", "k1", "k2"]) expect((await sessions.useOnce(a.id, { kind: "tool", key: k, request: "{}" }, async () => k)).ok).toBe(true);
    await expect(sessions.useOnce(a.id, { kind: "tool", key: "k3", request: "{}" }, async () => "k3")).rejects.toMatchObject({ code: "SESSION_TOO_LARGE" });
    sessions.closeAll();
  });

  it("refuses a keyed call while another changing call runs, and records nothing for it", async () => {
    const sessions = createSessionManager({ env, engine });
    const a = await sessions.open({ task_index: 0 });
    let release!: () => void;
    const key = { kind: "step" as const, key: "0", request: "{}" };
    const running = sessions.useOnce(a.id, key, () => new Promise<string>((r) => (release = () => r("first"))));
    await expect(sessions.useOnce(a.id, key, async () => "second")).rejects.toMatchObject({ code: "SESSION_BUSY" });
    release();
    expect(await running).toEqual({ ok: true, value: "first", replayed: false });
    expect(await sessions.useOnce(a.id, key, async () => "third")).toEqual({ ok: true, value: "first", replayed: true });
    sessions.closeAll();
  });

  it("opens a keyed open once: the same key and request get that session and its first answer, no second session", async () => {
    const sessions = createSessionManager({ env, engine });
    let answers = 0;
    const describe = ({ id }: { id: string }) => ({ id, answer: ++answers });
    const key = { key: "open-1", request: '{"task_index":0}' };
    const first = await sessions.openOnce({ task_index: 0 }, key, describe);
    expect(first).toEqual({ ok: true, value: { id: expect.any(String), answer: 1 }, replayed: false });
    const again = await sessions.openOnce({ task_index: 0 }, key, describe);
    expect(again).toEqual({ ...first, replayed: true });
    expect(answers).toBe(1);
    expect(sessions.stats()).toMatchObject({ open: 1, opened: 1 });
    // Another key is another open.
    const other = await sessions.openOnce({ task_index: 0 }, { ...key, key: "open-2" }, describe);
    expect(other.value.id).not.toBe(first.value.id);
    expect(sessions.size).toBe(2);
    sessions.closeAll();
  });

  it("refuses a key sent with another request (KEY_MISMATCH), opening nothing", async () => {
    const sessions = createSessionManager({ env, engine });
    const opened = await sessions.openOnce({ task_index: 0 }, { key: "k", request: '{"task_index":0}' }, ({ id }) => id);
    const mismatch = sessions.openOnce({ task_index: 1 }, { key: "k", request: '{"task_index":1}' }, ({ id }) => id);
    await expect(mismatch).rejects.toMatchObject({ code: "KEY_MISMATCH", message: expect.stringMatching(/^open key "k" came first with another request, whose session is open: a retry must send the same task/) });
    // Another request under a key does not learn the session that key opened.
    await expect(mismatch).rejects.not.toMatchObject({ message: expect.stringContaining(opened.value) });
    expect(sessions.stats()).toMatchObject({ open: 1, opened: 1 });
    sessions.closeAll();
  });

  it("forgets a key when its session closes or expires: the same key then opens a new session", async () => {
    let now = 0;
    const sessions = createSessionManager({ env, engine, idleMs: 1000, now: () => now });
    const key = { key: "k", request: "{}" };
    const first = await sessions.openOnce({ task_index: 0 }, key, ({ id }) => id);
    expect(sessions.close(first.value)).toBe(true);
    const second = await sessions.openOnce({ task_index: 0 }, key, ({ id }) => id);
    expect(second).toMatchObject({ replayed: false });
    expect(second.value).not.toBe(first.value);
    now = 5000;
    expect(sessions.sweep()).toBe(1);
    const third = await sessions.openOnce({ task_index: 0 }, key, ({ id }) => id);
    expect(third.replayed).toBe(false);
    expect([first.value, second.value]).not.toContain(third.value);
    expect(sessions.stats()).toMatchObject({ open: 1, opened: 3 });
    sessions.closeAll();
  });

  it("keeps nothing of a keyed open that failed: sent again, it opens once there is room", async () => {
    const sessions = createSessionManager({ env, engine, maxSessions: 1 });
    const a = await sessions.open({ task_index: 0 });
    const key = { key: "k", request: "{}" };
    await expect(sessions.openOnce({ task_index: 0 }, key, ({ id }) => id)).rejects.toMatchObject({ code: "SESSION_LIMIT" });
    sessions.close(a.id);
    const opened = await sessions.openOnce({ task_index: 0 }, key, ({ id }) => id);
    expect(opened.replayed).toBe(false);
    expect(sessions.size).toBe(1);
    sessions.closeAll();
  });

  it("stops held work (server-played rollouts) when it closes all sessions", async () => {
    const sessions = createSessionManager({ env, engine });
    const held = sessions.hold(1, (signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))));
    sessions.closeAll();
    await expect(held).rejects.toMatchObject({ code: "ABORTED", message: expect.stringMatching(/shutting down/) });
    expect(sessions.stats().open).toBe(0);
  });

  it("resolves tasks by id, index or object, and says what is wrong with a bad reference", () => {
    expect(taskFromRef(env, { task_id: "late-return" }).id).toBe("late-return");
    expect(taskFromRef(env, { task_index: 2 }).id).toBe(env.tasks[2].id);
    expect(taskFromRef(env, { task: { id: 7, inputs: { customer_email: "x@y.z", message: "hi" } } })).toEqual({ id: "7", inputs: { customer_email: "x@y.z", message: "hi" }, answer: undefined, fromClient: true });
    expect(() => taskFromRef(env, { task_id: "a", task_index: 0 })).toThrow(/exactly one/);
    expect(() => taskFromRef(env, { task: { inputs: 3 } })).toThrow(/task: inputs/);
    expect(() => taskFromRef(env, { task: { criteria: [] } })).toThrow(/client-supplied criteria are off/);
    expect(taskFromRef(env, { task: { criteria: [] } }, { allowTaskCriteria: true }).criteria).toEqual([]);
  });

  it("closing all sessions stops their episodes", async () => {
    const sessions = createSessionManager({ env, engine });
    const a = await sessions.open({ task_index: 0 });
    sessions.closeAll();
    expect(a.episode.closed).toBe(true);
    expect(sessions.size).toBe(0);
  });
});
