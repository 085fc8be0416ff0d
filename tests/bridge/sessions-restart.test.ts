/**
 * `serve --env` SIGKILLed and restarted on the same cache: a client holding a session gets a
 * clear 404 (not a hang, not a stack trace), and judge answers paid before the kill are not paid
 * again when the same episode is played and scored after the restart.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../../src/testing/servers/common.js";
import { tempDir } from "../helpers/cli.js";
import { JUDGE_MODEL } from "../env/world.js";
import { startSupportWorld } from "./env-world.js";
import { startServe, type LiveServer } from "./helpers.js";

let world: TestServer<unknown>;
let dir: string;
let judgeFile: string;
const live: LiveServer[] = [];

beforeAll(async () => {
  world = await startSupportWorld();
  dir = tempDir("rubricate-sessions-restart-");
  judgeFile = join(dir, "judge.yaml");
  writeFileSync(judgeFile, `provider: openai-compatible\nmodel: ${JUDGE_MODEL}\nbase_url: ${world.url}\nmax_retries: 1\n`);
});
afterAll(async () => {
  for (const s of live) s.child.kill("SIGKILL");
  await world.close();
});

const serve = async () => {
  const s = await startServe(["--env", "examples/support-desk/env.yaml", "--judge", judgeFile, "--cache", join(dir, "cache.db"), "--port", "0"]);
  live.push(s);
  return s;
};
const call = async (url: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(url + path, { method, headers: body === undefined ? {} : { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
};
const play = async (url: string) => {
  const { json: opened } = await call(url, "POST", "/v1/sessions", { task_id: "late-return" });
  await call(url, "POST", `/v1/sessions/${opened.session_id}/tools/find_orders`, { arguments: { email: "ben@example.com" } });
  return opened.session_id as string;
};
const judgeCalls = () => world.requests.filter((r) => (r.body as { model?: string }).model === JUDGE_MODEL).length;

describe("serve --env after a SIGKILL", () => {
  it("answers 404 for sessions it lost and pays no judge call twice", async () => {
    const first = await serve();
    const done = await play(first.url);
    const scored = await call(first.url, "POST", `/v1/sessions/${done}/finish`, { response: "I'm sorry, I can't refund order B200: it was delivered 101 days ago." });
    expect(scored.status).toBe(200);
    const paid = judgeCalls();
    expect(paid).toBeGreaterThan(0);
    const open = await play(first.url);
    first.child.kill("SIGKILL");
    await first.exited;

    const second = await serve();
    const lost = await call(second.url, "POST", `/v1/sessions/${open}/step`, { content: "hello?" });
    expect(lost.status).toBe(404);
    expect(lost.json.error.message).toMatch(/no open session .*server restarted/);
    // The same episode, played again: scored from the cache, the same reward.
    const again = await play(second.url);
    const rescored = await call(second.url, "POST", `/v1/sessions/${again}/finish`, { response: "I'm sorry, I can't refund order B200: it was delivered 101 days ago." });
    expect(rescored.json.reward).toBe(scored.json.reward);
    expect(judgeCalls()).toBe(paid);
  });
});
