/**
 * The hub's result store: a result of the hub's own eval and the record that counts it are
 * written together, so a hub stopped between the two cannot store the result twice on restart.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildHubResults } from "../../src/hub/push.js";
import { ResultStore, type StoredEval } from "../../src/site/store.js";
import { rolloutRecord } from "../helpers/rollout-record.js";
import { tempDir } from "../helpers/cli.js";

const env = { name: "@acme/times-env", version: "1.0.0", integrity: "sha512-x" };
const request = { env: env.name, version: env.version, integrity: env.integrity, models: ["mini", "big"], registry: "http://127.0.0.1:1/", user: "alice" };
const record: StoredEval = { id: "e1", env: env.name, version: env.version, models: request.models, state: "running", done: 2, total: 4, request, outs: ["a.jsonl", "b.jsonl"], stored: 1 };
const [built] = buildHubResults([0, 1].map((task) => rolloutRecord({ model: "openai:gpt-4.1-mini", task: String(task), envVersion: env.version, envPackage: { name: env.name, version: env.version, integrity: env.integrity } })));
const result = { ...built, env, model: "mini", rubricateVersion: "0.1.0" };

describe("ResultStore.addEvalResult", () => {
  it("stores the result and the eval's record counting it", () => {
    const store = new ResultStore(":memory:");
    const stored = store.addEvalResult(result, "hub-eval:alice", record);
    expect(store.forEnv(env.name)).toEqual([stored]);
    expect(store.evalRecord("e1")).toMatchObject({ stored: 1, done: 2 });
    store.close();
  });

  it("writes neither when the record cannot be written: a restart finds the model still to store, and no result", () => {
    const store = new ResultStore(":memory:");
    store.saveEval({ ...record, stored: 0, done: 0 });
    const failing = Object.assign(Object.create(store) as ResultStore, {
      saveEval() {
        throw new Error("disk I/O error");
      },
    });
    expect(() => failing.addEvalResult(result, "hub-eval:alice", record)).toThrow("disk I/O error");
    expect(store.forEnv(env.name)).toEqual([]);
    expect(store.evalRecord("e1")).toMatchObject({ stored: 0, done: 0 });
    store.close();
  });
});

describe("ResultStore on a file that is not one", () => {
  it("a --db that is another file or a folder is BAD_INPUT naming it (a SqliteError and its stack trace from hub serve before)", () => {
    const dir = tempDir("rubricate-store-");
    const notes = join(dir, "notes.txt");
    writeFileSync(notes, "these are my notes, not a database\n".repeat(200));
    expect(() => new ResultStore(notes)).toThrow(expect.objectContaining({ code: "BAD_INPUT", message: `${notes} is not a hub results store (SQLITE_NOTADB: file is not a database); move it away or pass another --db` }));
    expect(() => new ResultStore(dir)).toThrow(expect.objectContaining({ code: "BAD_INPUT", message: expect.stringContaining(`${dir} cannot be opened as the hub results store (SQLITE_CANTOPEN`) }));
  });
});
