import { describe, expect, it } from "vitest";
import { HttpError } from "../../src/bridge/http.js";
import { keptAnswers } from "../../src/bridge/kept-answers.js";
import { RubricateError } from "../../src/errors.js";

const idle = () => new AbortController().signal;

/** Work the test ends: `finish` answers it, `fail` fails it; `runs` counts the times it started. */
function gatedWork() {
  const gate = { runs: 0, finish: (_: unknown) => {}, fail: (_: Error) => {}, signal: undefined as AbortSignal | undefined };
  const fn = (signal: AbortSignal) =>
    new Promise<unknown>((resolve, reject) => {
      gate.runs++;
      gate.signal = signal;
      gate.finish = resolve;
      gate.fail = reject;
    });
  return { gate, fn };
}

describe("kept answers", () => {
  it("runs a key once: a copy while it runs waits for it, a copy after gets the kept answer", async () => {
    const kept = keptAnswers();
    const { gate, fn } = gatedWork();
    const first = kept.run("k", "{}", idle(), fn);
    const during = kept.run("k", "{}", idle(), fn);
    expect(kept.stats()).toEqual({ running: 1, kept: 0, bytes: 0 });
    gate.finish({ rewards: [1] });
    expect(await first).toEqual({ ok: true, value: { rewards: [1] }, replayed: false });
    expect(await during).toEqual({ ok: true, value: { rewards: [1] }, replayed: true });
    expect(await kept.run("k", "{}", idle(), fn)).toEqual({ ok: true, value: { rewards: [1] }, replayed: true });
    expect(gate.runs).toBe(1);
    expect(kept.stats()).toEqual({ running: 0, kept: 1, bytes: Buffer.byteLength('{"rewards":[1]}') });
  });

  it("refuses a key sent with another request (KEY_MISMATCH), running nothing", async () => {
    const kept = keptAnswers();
    const { gate, fn } = gatedWork();
    const first = kept.run("k", '{"k":1}', idle(), fn);
    await expect(kept.run("k", '{"k":2}', idle(), fn)).rejects.toMatchObject({ code: "KEY_MISMATCH" });
    gate.finish(1);
    await first;
    await expect(kept.run("k", '{"k":2}', idle(), fn)).rejects.toMatchObject({ code: "KEY_MISMATCH" });
    expect(gate.runs).toBe(1);
  });

  it("keeps no failure: copies waiting get it, a later copy runs again", async () => {
    const kept = keptAnswers();
    const { gate, fn } = gatedWork();
    const first = kept.run("k", "{}", idle(), fn);
    const during = kept.run("k", "{}", idle(), fn);
    gate.fail(new RubricateError("SESSION_LIMIT", "full"));
    await expect(first).rejects.toMatchObject({ code: "SESSION_LIMIT" });
    await expect(during).rejects.toMatchObject({ code: "SESSION_LIMIT" });
    expect(kept.stats()).toEqual({ running: 0, kept: 0, bytes: 0 });
    const again = kept.run("k", "{}", idle(), fn);
    gate.finish("played");
    expect(await again).toEqual({ ok: true, value: "played", replayed: false });
    expect(gate.runs).toBe(2);
  });

  it("plays on when the client hangs up, and stops when the server stops a request waiting on it", async () => {
    const kept = keptAnswers();
    const { gate, fn } = gatedWork();
    const client = new AbortController();
    const first = kept.run("k", "{}", client.signal, fn);
    client.abort(new HttpError(499, "CLIENT_CLOSED", "the client closed the connection"));
    expect(gate.signal!.aborted).toBe(false);
    const server = new AbortController();
    const retry = kept.run("k", "{}", server.signal, fn);
    const stop = new HttpError(503, "SHUTTING_DOWN", "the server is shutting down");
    server.abort(stop);
    expect(gate.signal!.reason).toBe(stop);
    gate.fail(gate.signal!.reason);
    await expect(first).rejects.toBe(stop);
    await expect(retry).rejects.toBe(stop);
  });

  it("keeps at most `entries` answers and `bytes` of them, the oldest going first; one over the budget is not kept", async () => {
    const kept = keptAnswers({ entries: 2, bytes: 30 });
    const answer = (text: string) => async () => text;
    for (const key of ["a", "b", "c"]) await kept.run(key, "{}", idle(), answer(key));
    expect(kept.stats()).toMatchObject({ kept: 2 });
    expect((await kept.run("a", "{}", idle(), answer("a again"))).replayed).toBe(false);
    expect((await kept.run("c", "{}", idle(), answer("c again"))).replayed).toBe(true);
    // 18 bytes of JSON each: the second pushes the total past 30, and the oldest goes.
    const long = "x".repeat(16);
    await kept.run("d", "{}", idle(), answer(long));
    await kept.run("e", "{}", idle(), answer(long));
    expect(kept.stats()).toEqual({ running: 0, kept: 1, bytes: 18 });
    expect((await kept.run("e", "{}", idle(), answer("e again"))).replayed).toBe(true);
    await kept.run("f", "{}", idle(), answer("y".repeat(40)));
    expect((await kept.run("f", "{}", idle(), answer("f again"))).value).toBe("f again");
  });
});
