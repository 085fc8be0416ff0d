/**
 * `score --queue`'s own files beside the output: like a local run, an output in a folder that does
 * not exist yet is written there (the folder made), not a bare ENOENT about `<out>.queue`.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { queuedRun } from "../../src/cli/queued-score.js";
import { loadRubricSync } from "../../src/rubric/load.js";
import { ROOT, writeJsonl } from "../helpers/cli.js";

it("score --queue -o into a folder not made yet: the folder is made and the run's marker written there", () => {
  // Inside the working folder, as a coordinator's files must be (workers find them by relative paths).
  mkdirSync(join(ROOT, "node_modules", ".cache"), { recursive: true });
  const dir = mkdtempSync(join(ROOT, "node_modules", ".cache", "queued-out-"));
  copyFileSync(join(ROOT, "tests/bridge/fixtures/one-question.yaml"), join(dir, "rubric.yaml"));
  writeJsonl(dir, "samples.jsonl", [{ question: "q?", answer: "1", response: "It is 1." }]);
  const output = join(dir, "results", "today", "out.jsonl");
  const run = queuedRun(loadRubricSync(join(dir, "rubric.yaml")), join(dir, "rubric.yaml"), join(dir, "samples.jsonl"), undefined, null, { queue: "redis://127.0.0.1:9/0", output, errors: "null" });
  expect(readFileSync(`${output}.queue`, "utf8")).toBe(`${run.runKey}\n`);
  run.finished();
  expect(existsSync(`${output}.queue`)).toBe(false);
  rmSync(dir, { recursive: true, force: true });
});
