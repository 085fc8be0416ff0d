import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runEval } from "../../src/env/eval.js";
import { loadEnvironment } from "../../src/env/load.js";
import type { Environment, RolloutRecord } from "../../src/env/types.js";
import { nextGuess } from "../../examples/wordle/solver.js";
import { tempDir } from "../helpers/cli.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { connect, startWorld, type WireMessage } from "./world.js";

let server: TestServer<unknown>;
let work: string;
beforeAll(async () => {
  work = tempDir("rubricate-version-");
  server = await startWorld({ solver: (m: WireMessage[]) => `GUESS: ${nextGuess(m.filter((x) => x.role === "user").map((x) => x.content ?? ""))}` }, () => true);
});
afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

describe("environment versions in rollouts", () => {
  it("every rollout carries the environment's version and package; a resume never takes another version's rollouts", async () => {
    const env: Environment = await loadEnvironment("examples/wordle/env.yaml");
    const out = join(work, "rollouts.jsonl");
    const v1 = connect(server.url, ["solver"]);
    const first = await runEval(env, { ...v1, tasks: 2, out });
    v1.engine.close();
    expect(first.records.map((r) => [r.envVersion, r.envPackage])).toEqual([
      ["1", undefined],
      ["1", undefined],
    ]);

    // The same file resumed with version 2 of the environment (from a package): nothing is reused.
    const v2env: Environment = { ...env, version: "2.0.0", package: { name: "@acme/wordle-env", version: "2.0.0", integrity: "sha512-abc" } };
    const v2 = connect(server.url, ["solver"]);
    const second = await runEval(v2env, { ...v2, tasks: 2, out, resume: true });
    v2.engine.close();
    expect(second.resumed).toBe(0);
    expect(second.records.map((r) => r.envVersion)).toEqual(["2.0.0", "2.0.0"]);
    expect(second.records[0].envPackage).toEqual({ name: "@acme/wordle-env", version: "2.0.0", integrity: "sha512-abc" });
    const lines = readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l) as RolloutRecord);
    expect(lines.map((r) => r.envVersion)).toEqual(["1", "1", "2.0.0", "2.0.0"]);

    // Resumed as version 2 again: both of its rollouts are found, none re-run.
    const v2again = connect(server.url, ["solver"]);
    const third = await runEval(v2env, { ...v2again, tasks: 2, out, resume: true });
    v2again.engine.close();
    expect(third.resumed).toBe(2);
  });
});
