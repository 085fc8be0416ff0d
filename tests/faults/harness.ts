/**
 * The fault suite's shared machinery: a judge server whose verdicts are fixed in advance (so a
 * verdict the run reports can be compared with what the judge decided), CLI runs that can be
 * killed, and the checks every scenario makes — each sample scored or a named error, no verdict
 * invented, no paid call repeated, the cache file intact.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startOpenAIServer, type OpenAIServerOptions } from "../../src/testing/servers/openai-server.js";
import { judgeResponder, type Decision } from "../../src/testing/servers/judge-responder.js";
import type { FaultKind, TestServer } from "../../src/testing/servers/common.js";
import { cliEntry, ROOT, tempDir, writeJsonl, writeJudgeFile } from "../helpers/cli.js";

/** The 10-question rubric every scenario scores. */
export const RUBRIC = "tests/fixtures/rubrics/ten-questions.yaml";
/** Env var of the test key (never a real one). */
export const ENV = { RUBRICATE_TEST_KEY: "sk-test-faults-0000" };
/** Error codes a criterion may legitimately end with under these faults. */
export const NAMED_ERRORS = new Set(["JUDGE_PARSE", "JUDGE_REFUSAL", "RATE_LIMITED", "PROVIDER_HTTP", "PROVIDER_TIMEOUT", "PROVIDER_NETWORK"]);

const hash = (s: string) => createHash("sha256").update(s).digest();

/** What the fake judge decides for question `qid` of sample `id`: fixed by a hash, so every run agrees. */
export function truth(id: number, qid: string): boolean {
  return (hash(`truth:${id}:${qid}`)[0] & 1) === 1;
}

/** The reward the rubric gives when every verdict is the truth (points: q1..q9 +1, q10 -2). */
export function expectedReward(id: number): number {
  let got = 0;
  for (let q = 1; q <= 10; q++) if (truth(id, `q${q}`)) got += q === 10 ? -2 : 1;
  return Math.min(1, Math.max(0, got / 9));
}

/** Samples whose text names their id, so the server can tell which sample a prompt is about. */
export const sampleRows = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ id: from + i, question: "Where is it?", response: `Sample #${from + i}: it is in Paris, on the Seine.` }));

/** A fault-injecting judge server and what it saw. */
export interface FaultServer {
  server: TestServer<OpenAIServerOptions>;
  /** Answer time (ms) of request i (set when the judge wrote an answer, whatever the fault then did to it). */
  answeredAt: Map<number, number>;
  /** Requests whose answer was not well-formed on purpose (dropped ids, malformed verdicts). */
  illFormed: Set<number>;
}

/** Options of `startFaultServer`. */
export interface FaultServerOptions extends Omit<OpenAIServerOptions, "respond"> {
  /** Share of question ids left out of batched answers (seeded per sample and question). */
  dropRate?: number;
  /** Samples whose q2 always gets a malformed verdict (batched and single): they must end as JUDGE_PARSE. */
  poisoned?: (id: number) => boolean;
}

/** Starts the OpenAI-format server answering with `truth`, dropping and poisoning as asked. */
export async function startFaultServer(options: FaultServerOptions = {}): Promise<FaultServer> {
  const { dropRate = 0, poisoned = () => false, ...rest } = options;
  const answeredAt = new Map<number, number>();
  const illFormed = new Set<number>();
  const decide = judgeResponder((q, view): Decision => {
    const id = Number(/Sample #(\d+)/.exec(view.sample)?.[1]);
    if (!Number.isInteger(id)) throw new Error(`no sample id in ${view.sample.slice(0, 80)}`);
    if (q.id === "q2" && poisoned(id)) return "malformed";
    if (view.batched && hash(`drop:${id}:${q.id}`)[0] / 256 < dropRate) return "drop";
    return truth(id, q.id);
  });
  const server = await startOpenAIServer({
    ...rest,
    respond: (body, rec) => {
      answeredAt.set(rec.index, Date.now());
      const reply = decide(body);
      const text = typeof reply === "string" ? reply : (reply.text ?? "");
      const view = /"answers"/.test(text) ? (JSON.parse(text) as { answers: { verdict: unknown }[] }).answers : null;
      const asked = (JSON.stringify(body).match(/- id: /g) ?? []).length;
      if (text === "no answer" || text.includes('"perhaps"') || (view && view.length !== asked)) illFormed.add(rec.index);
      return reply;
    },
  });
  return { server, answeredAt, illFormed };
}

/** Counts of each fault the server applied, for the printed summary. */
export function faultCounts(server: TestServer<unknown>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of server.requests) out[r.fault] = (out[r.fault] ?? 0) + 1;
  return out;
}

/** "241×429, 118×500/529, …" */
export function describeFaults(counts: Record<string, number>): string {
  const order: FaultKind[] = ["429", "500", "529", "hang", "reset", "drop", "truncated", "garbage", "html"];
  return order.filter((k) => counts[k]).map((k) => `${counts[k]}×${k}`).join(", ") || "no faults";
}

/**
 * Paid answers (fault "none", well-formed) asked again with the same body. A repeat is excused
 * only when the earlier answer left the server within `windowMs` before a kill (or just after
 * it): it was on its way to a process that died before it could store it, which no client can avoid.
 */
export function repeatedPaidCalls(fs: FaultServer, kills: number[], windowMs = 1500): { repeats: number; excused: number; paid: number; atKill: number } {
  const seen = new Map<string, number>();
  // An answer written just after a kill went to a dead socket: the next run starts a second later at least.
  const nearKill = (at: number) => kills.some((k) => at >= k - windowMs && at <= k + 500);
  let repeats = 0;
  let excused = 0;
  let paid = 0;
  let atKill = 0;
  for (const r of fs.server.requests) {
    if (r.fault === "none" && nearKill(fs.answeredAt.get(r.index) ?? 0)) atKill++;
    if (r.fault !== "none" || fs.illFormed.has(r.index)) continue;
    paid++;
    const key = createHash("sha256").update(JSON.stringify(r.body)).digest("hex");
    const earlier = seen.get(key);
    seen.set(key, r.index);
    if (earlier === undefined) continue;
    const at = fs.answeredAt.get(earlier) ?? 0;
    if (nearKill(at)) excused++;
    else {
      repeats++;
      if (process.env.FAULTS_DEBUG) console.log("repeat", earlier, r.index, at, fs.answeredAt.get(r.index), kills, JSON.stringify(r.body).slice(-300));
    }
  }
  return { repeats, excused, paid, atKill };
}

/** One result line of `rubricate score`. */
export interface ResultLine {
  index: number;
  id: number;
  reward: number | null;
  verdicts: { id: string; status: string; error?: { code: string } }[];
  errors: { criterion: string; code: string }[];
}

/** Reads a results JSONL. */
export const readResults = (path: string): ResultLine[] => readFileSync(path, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as ResultLine);

/**
 * Checks each result against the judge's decisions: every sample scored or with named errors,
 * and no verdict that differs from what the judge decided. Returns the counts it checked.
 */
export function checkResults(results: ResultLine[], ids: number[]): { scored: number; errored: number; verdicts: number; invented: string[]; unnamed: string[]; codes: Record<string, number> } {
  const invented: string[] = [];
  const unnamed: string[] = [];
  const codes: Record<string, number> = {};
  let verdicts = 0;
  let scored = 0;
  let errored = 0;
  if (results.map((r) => r.id).join() !== ids.join()) throw new Error(`results are not one per sample in order: ${results.map((r) => r.id).slice(0, 20).join()}…`);
  for (const r of results) {
    for (const v of r.verdicts) {
      if (v.status === "met" || v.status === "unmet") {
        verdicts++;
        if ((v.status === "met") !== truth(r.id, v.id)) invented.push(`${r.id}/${v.id}`);
      } else if (v.status === "error") {
        const code = v.error?.code ?? "?";
        codes[code] = (codes[code] ?? 0) + 1;
        if (!NAMED_ERRORS.has(code)) unnamed.push(`${r.id}/${v.id}:${code}`);
      } else unnamed.push(`${r.id}/${v.id}:${v.status}`);
    }
    if (r.reward !== null) {
      scored++;
      if (r.errors.length === 0 && Math.abs(r.reward - expectedReward(r.id)) > 1e-9) invented.push(`${r.id}: reward ${r.reward}`);
    } else {
      errored++;
      if (r.errors.length === 0 || r.errors.some((e) => !NAMED_ERRORS.has(e.code))) unnamed.push(`${r.id}: null reward, errors ${JSON.stringify(r.errors)}`);
    }
  }
  return { scored, errored, verdicts, invented, unnamed, codes };
}



/** A scenario's folder: samples, judge file, cache and output paths. */
export interface Job {
  dir: string;
  samples: string;
  judge: string;
  cache: string;
  out: string;
  args: string[];
}

/** Writes the samples and judge file of a scenario. */
export function makeJob(url: string, n: number, judge: Record<string, unknown> = {}): Job {
  const dir = tempDir("rubricate-faults-");
  chmodSync(dir, 0o777);
  const samples = writeJsonl(dir, "samples.jsonl", sampleRows(n));
  const judgeFile = writeJudgeFile(dir, url, judge);
  const cache = join(dir, "cache.db");
  const out = join(dir, "out.jsonl");
  return { dir, samples, judge: judgeFile, cache, out, args: ["score", RUBRIC, samples, "--judge", judgeFile, "--cache", cache, "-o", out, "-q"] };
}

/** Options of `startRun`. */
export interface RunOptions {
  /** Run as this user (file modes mean nothing to root). */
  user?: { uid: number; gid: number };
  /** Modules to preload (`--import`), e.g. a disk-full hook. */
  preload?: string[];
  env?: Record<string, string>;
}

/** A CLI run in progress. */
export interface Run {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/**
 * Starts `rubricate <args>` in one node process (so a signal hits the worker): the run's build when
 * the test file is one of vitest.config.ts's `built` files, else the sources (tests/helpers/cli.ts
 * `cliEntry`). Preloaded modules are TypeScript, so a preload brings the tsx loader with it.
 */
export function startRun(args: string[], options: RunOptions = {}): Run {
  const entry = cliEntry();
  const [main, loader] = [entry.at(-1)!, entry.slice(0, -1)];
  const pre = (options.preload ?? []).flatMap((p) => ["--import", p]);
  const child = spawn(process.execPath, [...(pre.length > 0 && loader.length === 0 ? ["--import", "tsx"] : loader), ...pre, main, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...ENV, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
    ...(options.user ?? {}),
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

/** Polls until `cond` holds or `run` exits; true when `cond` held. */
export async function waitFor(cond: () => boolean, run: Run): Promise<boolean> {
  let exited = false;
  void run.done.then(() => (exited = true));
  while (!cond()) {
    if (exited) return false;
    await new Promise((r) => setTimeout(r, 5));
  }
  return true;
}

/** Root ignores file modes: a read-only scenario runs the CLI as nobody when the tests run as root. */
export const asUnprivileged = (): { uid: number; gid: number } | undefined => (process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined);

/** True when a file exists. */
export const exists = (p: string) => existsSync(p);

export { cacheRows, integrity } from "../helpers/cache-db.js";
