import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { compareModels, taskMeans } from "../env/stats.js";
import type { RolloutRecord } from "../env/types.js";
import { RubricateError } from "../errors.js";
import { jsonFileValue, jsonLineValue } from "../config/jsonl.js";
import { parseJsonText } from "../text/json.js";
import { rubricateVersion } from "./package.js";
import { HUB_RESULT_SCHEMA, HubResultSchema, type HubResult } from "./results.js";
import { issueLines } from "../config/issues.js";

/** What a run knows that its rollout records do not. */
export interface HubResultMeta {
  /** The judge model id(s) the rubric was scored with. */
  judge?: string;
  /** A training run's step: results of one `series` draw a training curve. */
  step?: number;
  series?: string;
  passThreshold?: number;
  /** When the run finished (default: now). */
  finishedAt?: Date;
  /** Rollouts are sent along while their JSON stays under this many bytes (default 1 MB); above it the hub gets the summary only. */
  maxRolloutBytes?: number;
}

const DEFAULT_MAX_ROLLOUT_BYTES = 1_000_000;

/**
 * One `HubResult` per model of an eval's records (they must all come from one environment
 * version): the environment's exact name, version and integrity as stamped in the rollouts,
 * per-model statistics, per-criterion rates and per-task means, and the rollouts while small.
 * @example buildHubResults(result.records, { judge: "openai:gpt-4.1-mini", step: 200, series: "run-7" })
 */
export function buildHubResults(records: RolloutRecord[], meta: HubResultMeta = {}): HubResult[] {
  if (records.length === 0) throw new RubricateError("BAD_INPUT", "no rollouts to push");
  const envs = new Set(records.map((r) => `${r.envPackage?.name ?? r.env}@${r.envPackage?.version ?? r.envVersion ?? ""}`));
  if (envs.size > 1) throw new RubricateError("BAD_INPUT", `the rollouts come from ${envs.size} environment versions (${[...envs].join(", ")}); push one environment version at a time`);
  const first = records[0];
  const env = {
    name: first.envPackage?.name ?? first.env,
    version: first.envPackage?.version ?? first.envVersion ?? "0.0.0",
    ...(first.envPackage?.integrity ? { integrity: first.envPackage.integrity } : {}),
  };
  const cmp = compareModels(records, { passThreshold: meta.passThreshold ?? thresholdMarked(records) });
  const finishedAt = (meta.finishedAt ?? new Date()).toISOString();
  const maxBytes = meta.maxRolloutBytes ?? DEFAULT_MAX_ROLLOUT_BYTES;
  return cmp.models.map((m) => {
    const own = records.filter((r) => r.model === m.model);
    const rolloutsJson = JSON.stringify(own);
    const result: HubResult = {
      schema: HUB_RESULT_SCHEMA,
      env,
      model: m.model,
      ...(meta.judge ? { judge: meta.judge } : {}),
      rubricateVersion: rubricateVersion(),
      ...(meta.step !== undefined ? { step: meta.step } : {}),
      ...(meta.series ? { series: meta.series } : {}),
      finishedAt,
      stats: {
        rollouts: m.rollouts,
        tasks: m.tasks,
        scored: m.scored,
        errors: m.errors,
        ...(m.reward ? { reward: m.reward } : {}),
        ...(m.passRate !== undefined ? { passRate: m.passRate } : {}),
        passAtK: Object.fromEntries(Object.entries(m.passAtK).map(([k, v]) => [String(k), v])),
        criteria: m.criteria,
        costUsd: m.usage.costUsd,
        perTask: Object.fromEntries(taskMeans(own)),
      },
      ...(Buffer.byteLength(rolloutsJson) <= maxBytes ? { rollouts: JSON.parse(rolloutsJson) as Record<string, unknown>[] } : {}),
    };
    // The contract is checked here too: a result the hub would refuse as malformed is our bug, said now.
    return HubResultSchema.parse(result);
  });
}

/**
 * The pass threshold the eval marked `passed` by, for callers that do not know the rubric (the
 * hub's own evals): the lowest reward marked passed. On these records it passes exactly the
 * rollouts the rubric's threshold passed, since no reward lies between the two.
 */
function thresholdMarked(records: RolloutRecord[]): number | undefined {
  const passed = records.flatMap((r) => (r.passed && r.reward !== null ? [r.reward] : []));
  return passed.length ? Math.min(...passed) : undefined;
}

/** Options of `pushHubResult`. */
export interface PushOptions {
  /** Sent as `Authorization: Bearer <token>` (default `$RUBRICATE_HUB_TOKEN`). */
  token?: string;
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/** What the hub answered to an accepted result (its JSON body, whatever fields it has). */
export type PushAnswer = Record<string, unknown>;

/**
 * POSTs one result to `<hub>/api/results`. A hub that refuses (4xx/5xx, `{error:{code,message}}`)
 * is a HUB_REFUSED error carrying its message; a hub that cannot be reached is HUB_DOWN.
 * @example await pushHubResult("http://localhost:8787", result)
 */
export async function pushHubResult(hub: string, result: HubResult, options: PushOptions = {}): Promise<PushAnswer> {
  const url = `${hub.replace(/\/+$/, "")}/api/results`;
  const token = options.token ?? (process.env.RUBRICATE_HUB_TOKEN || undefined);
  let res: Response;
  try {
    res = await (options.fetch ?? fetch)(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(result),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new RubricateError("HUB_DOWN", `cannot reach the hub at ${url} (${cause?.code ?? cause?.message ?? (e as Error).message})`, { retryable: true });
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    const err = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
    const why = err?.message ? `${err.code ? `${err.code}: ` : ""}${err.message}` : text.slice(0, 200).trim() || res.statusText;
    // Over the hub's writes per minute (429) is worth sending again later, as a server error is.
    throw new RubricateError("HUB_REFUSED", `the hub refused ${result.model} on ${result.env.name}@${result.env.version} (HTTP ${res.status}: ${why})`, { retryable: res.status >= 500 || res.status === 429 });
  }
  return typeof body === "object" && body !== null ? (body as PushAnswer) : {};
}

/**
 * Pushes every result; the ones the hub did not take are written to `pendingFile` (kept for
 * `rubricate hub push <file>`), and the first failure is thrown after all were tried.
 * Returns the hub's answers for the accepted ones.
 */
export async function pushAll(hub: string, results: HubResult[], pendingFile: string, options: PushOptions = {}): Promise<PushAnswer[]> {
  const answers: PushAnswer[] = [];
  const pending: HubResult[] = [];
  let first: unknown;
  for (const r of results) {
    try {
      answers.push(await pushHubResult(hub, r, options));
    } catch (e) {
      pending.push(r);
      first ??= e;
    }
  }
  if (pending.length > 0) {
    writeFileSync(pendingFile, `${JSON.stringify(pending, null, 2)}\n`);
    const e = first as Error;
    throw new RubricateError((e as RubricateError).code ?? "HUB_DOWN", `${e.message}; ${pending.length} result(s) kept in ${pendingFile}: \`rubricate hub push ${pendingFile} --hub ${hub}\` sends them again`);
  }
  if (existsSync(pendingFile)) writeFileSync(pendingFile, "[]\n");
  return answers;
}

/** A .hub.json file's entries, each checked against the hub result schema. */
function hubResults(items: unknown[], path: string): HubResult[] {
  return items.map((item, i) => {
    const checked = HubResultSchema.safeParse(item);
    if (!checked.success) throw new RubricateError("SCHEMA", `result ${i + 1} is not a hub result: ${issueLines(checked.error, { root: "the result" }).join("; ")}`, { location: { file: path } });
    return checked.data;
  });
}

/**
 * Results to push from a file: saved `HubResult`s (a `.hub.json` file a failed push left, one
 * result or an array), or an eval's rollouts JSONL (results built from it with `meta`).
 */
export function readPushFile(path: string, meta: HubResultMeta = {}): HubResult[] {
  if (!existsSync(path)) throw new RubricateError("FILE_NOT_FOUND", `${path}: no such file`);
  // A byte order mark (Windows editors) is not part of the first line, as `score` reads it.
  const text = readFileSync(path, "utf8").replace(/^\uFEFF/, "");
  const trimmed = text.trim();
  // A JSON array is a .hub.json file (no rollout line starts with "["): its errors are the file's, at file:line:col.
  if (trimmed.startsWith("[")) return hubResults(jsonFileValue(text, path, { hint: "a .hub.json file: an array of hub results" }) as unknown[], path);
  // One result, on one line or pretty-printed; an object that is not one is the first line of a rollouts JSONL.
  if (trimmed.startsWith("{")) {
    const whole = parseJsonText(text);
    if ("value" in whole && (whole.value as { schema?: unknown } | null)?.schema === HUB_RESULT_SCHEMA) return hubResults([whole.value], path);
  }
  const records: RolloutRecord[] = [];
  text.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    const rec = jsonLineValue(line, path, i + 1);
    const r = rec as Partial<RolloutRecord>;
    if (typeof r.model !== "string" || typeof r.task !== "string" || !Array.isArray(r.verdicts)) {
      throw new RubricateError("BAD_INPUT", `not a rollout record (needs model, task, verdicts): push an eval's rollouts JSONL or a .hub.json file`, { location: { file: path, line: i + 1, col: 1 } });
    }
    records.push(rec as RolloutRecord);
  });
  return buildHubResults(records, meta);
}
