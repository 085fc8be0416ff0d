/**
 * `score --queue`'s own files beside the output: like a local run, an output in a folder that does
 * not exist yet is written there (the folder made), not a bare ENOENT about `<out>.queue`.
 */
import { copyFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ROOT, runCli, tempDir, writeJudgeFile, writeJsonl } from "../helpers/cli.js";

it("score --queue -o into a folder not made yet: the folder is made, the run goes on to the queue", async () => {
  const dir = tempDir("rubricate-queued-out-");
  copyFileSync(join(ROOT, "tests/bridge/fixtures/one-question.yaml"), join(dir, "rubric.yaml"));
  writeJsonl(dir, "samples.jsonl", [{ question: "q?", answer: "1", response: "It is 1." }]);
  writeJudgeFile(dir, "http://127.0.0.1:9/v1");
  // No Redis listens there: the run ends with the queue's error, once past its files.
  const r = await runCli(["score", "rubric.yaml", "samples.jsonl", "-o", "results/today/out.jsonl", "--judge", "judge.yaml", "--queue", "redis://127.0.0.1:9/0"], { cwd: dir, env: { RUBRICATE_QUEUE_OUTAGE_MS: "500" } });
  expect(r.stderr).not.toMatch(/ENOENT/);
  expect(r.stderr).toMatch(/QUEUE: Redis at redis:\/\/127\.0\.0\.1:9\/0 has not answered/);
  expect(existsSync(join(dir, "results/today/out.jsonl.queue"))).toBe(true);
}, 60_000);
