/**
 * What the queue tests share (tests/queue/score.test.ts, hardening.test.ts): the samples of a run,
 * the judge's rule for them, a project folder, and a worker process whose log is kept.
 */
import type { ChildProcess } from "node:child_process";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, spawnCli, tempDir, writeJudgeFile, writeJsonl } from "../helpers/cli.js";

/** A run's samples: the reference answer is i; every third response gives it. */
export const queueSamples = (run: string, n: number) => Array.from({ length: n }, (_, i) => ({ question: `${run} question ${i}?`, answer: String(i), response: i % 3 === 0 ? `It is ${i}.` : "No idea." }));

/** The fake judge's verdict: yes when the response states an answer. */
export const statesAnAnswer = (_q: unknown, view: { sample: string }) => /It is (\d+)\./.test(view.sample);

/** A folder with the one-question rubric, a judge file on `judgeUrl` and `rows` as samples.jsonl. */
export function queueProject(judgeUrl: string, rows: unknown[], maxConcurrency: number, prefix = "rubricate-queue-"): string {
  const dir = tempDir(prefix);
  copyFileSync(join(ROOT, "tests/bridge/fixtures/one-question.yaml"), join(dir, "rubric.yaml"));
  writeJudgeFile(dir, judgeUrl, { max_retries: 0, max_concurrency: maxConcurrency });
  writeJsonl(dir, "samples.jsonl", rows);
  return dir;
}

/** Starts `rubricate worker` on the queue in `dir` (kept in `children`, for the tests' cleanup); its stderr is kept. */
export function startQueueWorker(children: ChildProcess[], dir: string, url: string, env: Record<string, string>, extra: string[] = []) {
  const child = spawnCli(["worker", "--queue", url, "--lock-ms", "2000", ...extra], { cwd: dir, env });
  let log = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (log += d));
  children.push(child);
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  return { child, exited, log: () => log };
}

/** Waits for a state of the run, not a time (processes start slowly on a loaded machine); `condition` may ask Redis. */
export async function waitUntil(condition: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
