/** Shared pieces of the bridge tests: a judge that decides from the sample text, and a live `rubricate serve`. */
import { join } from "node:path";
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { cliEntry, ROOT } from "../helpers/cli.js";
import { promptText, type AskedQuestion, type JudgeRequestView } from "../../src/testing/servers/judge-responder.js";
import type { TestServer } from "../../src/testing/servers/common.js";

export const RUBRIC = join(ROOT, "tests/bridge/fixtures/qa.yaml");
export const KEY = "sk-test-bridge-7c1d";

/** The judge's answers: read from the delimited sample, so any client gets the same verdicts. */
export function decide(q: AskedQuestion, view: JudgeRequestView): boolean | "malformed" {
  const response = /### response\n([\s\S]*?)(\n\n### |$)/.exec(view.sample)?.[1] ?? "";
  const answer = /### answer\n([\s\S]*?)(\n\n### |$)/.exec(view.sample)?.[1] ?? "";
  if (response.includes("GARBLE")) return "malformed"; // the judge misbehaves: no reward, never a 0
  if (q.id === "correct") return answer !== "" && response.includes(answer);
  if (q.id === "polite") return /please|thank/i.test(response);
  if (q.id === "insults") return /idiot/i.test(response);
  if (q.id === "cites") return /according to/i.test(response);
  return false;
}

/** A running `rubricate serve` child and its base URL. */
export interface LiveServer {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `rubricate serve <args>` (one process, so a SIGKILL hits the server itself) and waits for its "listening on" line (or its exit). */
export async function startServe(args: string[], env: Record<string, string> = {}): Promise<LiveServer> {
  const child = spawn(process.execPath, [...cliEntry(), "serve", ...args], { cwd: ROOT, env: { ...process.env, RUBRICATE_TEST_KEY: KEY, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stdout!.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on("close", (code, signal) => r({ code, signal })));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (d) => {
      stderr += d;
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1]);
    });
    exited.then(({ code }) => reject(new Error(`serve exited (${code}) before listening:\n${stderr}`)));
  });
  return { child, url, stderr: () => stderr, exited };
}

/** Runs a Python file with the machine's python3; resolves with its stdout (rejects on a non-zero exit). */
export function runPython(args: string[], input = "", env: Record<string, string> = {}): Promise<string> {
  const child = spawn("python3", args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] });
  child.stdin.end(input);
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  return new Promise((resolve, reject) => child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`python3 ${args.join(" ")} exited ${code}:\n${err}`)))));
}

/** A response's JSON body, loosely typed: the tests assert its shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const jsonOf = async (res: Response): Promise<any> => res.json();

/** The judge prompts a fake judge was paid for that mention `marker`, each with how often it was paid. */
export function paidCounts(judge: TestServer<unknown>, marker: string): number[] {
  const counts = new Map<string, number>();
  for (const r of judge.requests) {
    const prompt = promptText(r.body as Record<string, unknown>);
    if (prompt.includes(marker)) counts.set(prompt, (counts.get(prompt) ?? 0) + 1);
  }
  return [...counts.values()];
}
