/**
 * `rubricate env synth`: a model drafts tasks from a user's documents, one request per group of one
 * or two passages spread across the documents, and each task is checked before it is kept: its
 * answer reads as YAML of the right shape (else it is sent back, then counted as an error), its
 * cited passages are among those shown, its criteria pass the linter (`draft`'s own check), it is
 * no near-duplicate of a kept or existing task (distill's MinHash index), a judge finds the answer
 * in the cited passages, its criteria pass the reference answer and fail a response that only
 * echoes the question, and (optionally) a model without the passages does not already give it.
 * Every call goes through the engine: a rerun replays the same drafts from the cache and pays nothing.
 */
import { createHash } from "node:crypto";
import { stringify } from "yaml";
import * as z from "zod";
import { isRubricateError, RubricateError, toRubricateError } from "../errors.js";
import { parseYamlSource } from "../config/yaml-source.js";
import { NearDupIndex } from "../distill/minhash.js";
import { DraftCriterionSchema, evaluateDraft, unfence } from "../draft/draft.js";
import { uniqueCriterionIds } from "../draft/samples.js";
import type { Engine } from "../engine/engine.js";
import { policySchedulerId, type Policy } from "../env/policy.js";
import type { Judge } from "../judge/types.js";
import type { ChatMessage } from "../providers/types.js";
import type { Criterion } from "../rubric/schema.js";
import { seededRandom } from "../stats/rng.js";
import { addUsage, emptyUsage, type Usage } from "../types.js";
import { criteriaDiscriminate, matchesReference, supportedBy, type CheckAnswer } from "./synth-checks.js";
import { CLOSED_BOOK_SYSTEM_PROMPT, SYNTH_SYSTEM_PROMPT, synthRepairPrompt, synthUserPrompt } from "./synth-prompt.js";
import type { Chunk } from "./types.js";
import { issueLines } from "../config/issues.js";

/** Why a drafted task was not kept. */
export type RejectReason = "bad-chunk-id" | "lint" | "duplicate" | "unsupported" | "weak-criteria" | "closed-book";

/** Where a kept task came from: written into its `meta.synth`. */
export interface SynthProvenance {
  /** The passages the task cites (its evidence). */
  chunks: string[];
  /** The passages the drafting model was shown. */
  shown: string[];
  /** The drafting model (`provider:model`). */
  model: string;
  /** The request's number in this run's plan (the same passages for the same seed and corpus). */
  request: number;
  seed: number;
  /** The closed-book probe's answer, when the probe ran (it did not match the reference). */
  closedBook?: string;
}

/** A kept task, in the environment's task format (`inputs.question`, `inputs.source`, `answer`, `criteria`). */
export interface SynthTask {
  id: string;
  inputs: { question: string; source: string };
  answer: string;
  criteria: Criterion[];
  meta: { synth: SynthProvenance };
}

/** A drafted task that failed a check. */
export interface SynthRejection {
  request: number;
  reason: RejectReason;
  detail: string;
  question: string;
  answer: string;
  chunks: string[];
}

/** A request that gave no verdict: unreadable after its retries, a failed call, a judge error. */
export interface SynthError {
  request: number;
  /** The passages the request showed. */
  chunks: string[];
  code: string;
  message: string;
}

/** Options of `synthesizeTasks`. */
export interface SynthOptions {
  engine: Engine;
  /** The model that drafts the tasks. */
  drafter: Policy;
  /** Answers the support check and the closed-book comparison. */
  judge: Judge;
  /** Tasks to keep, counting those of this plan already in the environment (`existing`). */
  count: number;
  /** Drafting requests at most (default 2 × count): rejections use some. */
  maxRequests?: number;
  /** Seeds the choice of passages (default 1): the same seed and corpus make the same requests. */
  seed?: number;
  /** Asks this model the question without the passages; a task it already answers is rejected. */
  closedBook?: Policy;
  /** Criterion ids the environment's rubric uses: a task's own are renamed around them. */
  reservedCriterionIds?: Iterable<string>;
  /** Tasks already in the environment: their ids are skipped as existing, their questions count for dedup. */
  existing?: { ids: Iterable<string>; questions: Iterable<string> };
  /** Jaccard similarity of questions from which two count as duplicates (default 0.8). */
  dedupThreshold?: number;
  /** Times an unreadable answer is sent back before it counts as an error (default 2). */
  parseRetries?: number;
  /** Requests in flight at once (default 8); the model's scheduler still limits its calls. */
  concurrency?: number;
  signal?: AbortSignal;
  /** Called after each wave of requests with the tasks it kept (save them now: a stop later loses nothing). */
  onKept?: (tasks: SynthTask[]) => void;
  /** Called after each wave of requests is settled. */
  onRequest?: (progress: { done: number; kept: number }) => void;
}

/** What a synthesis run gives: kept tasks, rejections with reasons, errors, and the usage it paid. */
export interface SynthResult {
  kept: SynthTask[];
  rejected: SynthRejection[];
  errors: SynthError[];
  /** Drafted tasks already in the environment (a rerun finds its earlier tasks here). */
  existing: number;
  requests: number;
  usage: Usage;
}

/** The YAML shape the drafting model answers in; criteria in `draft`'s format. */
const SynthDraftSchema = z.object({
  question: z.string().trim().min(1),
  answer: z.string().trim().min(1),
  chunks: z.array(z.string().min(1)).min(1),
  criteria: z.array(DraftCriterionSchema).min(1),
});
type SynthDraft = z.infer<typeof SynthDraftSchema>;

/** One drafted task after the checks that need no judge. */
type Drafted = { request: number; group: Chunk[] } & ({ draft: SynthDraft; criteria: Criterion[]; id: string } | { rejection: SynthRejection } | { error: SynthError });

/**
 * Drafts and checks tasks until `count` are kept or `maxRequests` are spent.
 * @example const { kept, rejected } = await synthesizeTasks(chunks, { engine, drafter, judge, count: 200 });
 */
export async function synthesizeTasks(chunks: readonly Chunk[], options: SynthOptions): Promise<SynthResult> {
  if (chunks.length === 0) throw new RubricateError("BAD_INPUT", "no passages to draft tasks from: the documents folder gave no text");
  const seed = options.seed ?? 1;
  const maxRequests = options.maxRequests ?? options.count * 2;
  const plan = planChunkGroups(chunks, maxRequests, seed);
  const byId = new Map(chunks.map((c) => [c.id, c]));
  const existingIds = new Set(options.existing?.ids ?? []);
  const dedup = new NearDupIndex({ threshold: options.dedupThreshold ?? 0.8 });
  for (const q of options.existing?.questions ?? []) dedup.check(q);
  const result: SynthResult = { kept: [], rejected: [], errors: [], existing: 0, requests: 0, usage: emptyUsage() };
  const wave = Math.max(1, options.concurrency ?? 8);
  engineScheduler(options.engine, options.drafter);
  if (options.closedBook) engineScheduler(options.engine, options.closedBook);

  // Tasks an earlier run of the same plan kept count toward the target: the same command run again is free.
  const reached = () => result.kept.length + result.existing >= options.count;
  for (let start = 0; start < plan.length && !reached(); start += wave) {
    if (options.signal?.aborted) throw new RubricateError("ABORTED", "aborted");
    const groups = plan.slice(start, start + wave).map((group, i) => ({ request: start + i, group }));
    const drafted = await Promise.all(groups.map(({ request, group }) => draftOne(request, group, byId, options, seed, result.usage)));
    // Existing and duplicate tasks are told apart in request order, so a run decides the same way every time.
    const toJudge: Extract<Drafted, { draft: SynthDraft }>[] = [];
    for (const d of drafted) {
      if ("error" in d) result.errors.push(d.error);
      else if ("rejection" in d) result.rejected.push(d.rejection);
      else if (existingIds.has(d.id)) result.existing++;
      else if (reached()) continue;
      else if (dedup.check(d.draft.question)) result.rejected.push(rejection(d.request, "duplicate", "a kept or existing task asks nearly the same question", d.draft));
      else toJudge.push(d);
    }
    const judged = await Promise.all(toJudge.map((d) => judgeOne(d, byId, options, seed, result.usage)));
    const kept: SynthTask[] = [];
    for (const outcome of judged) {
      if ("error" in outcome) result.errors.push(outcome.error);
      else if ("rejection" in outcome) result.rejected.push(outcome.rejection);
      else if (result.kept.length + kept.length + result.existing < options.count) {
        kept.push(outcome.task);
        existingIds.add(outcome.task.id);
      }
    }
    result.kept.push(...kept);
    if (kept.length > 0) options.onKept?.(kept);
    result.requests = start + groups.length;
    options.onRequest?.({ done: result.requests, kept: result.kept.length });
  }
  return result;
}

/**
 * The passages of each request: documents visited in a seeded shuffled order, round-robin, so
 * requests spread across the corpus; every other request takes two neighbouring passages of one
 * document (a question that needs both), when the document has them. A passage group is used once.
 * @example planChunkGroups(chunks, 200, 1)[0] // [chunk] or [chunk, next chunk of the same document]
 */
export function planChunkGroups(chunks: readonly Chunk[], requests: number, seed: number): Chunk[][] {
  const random = seededRandom(seed);
  const docs = new Map<string, Chunk[]>();
  for (const c of chunks) (docs.get(c.doc) ?? docs.set(c.doc, []).get(c.doc)!).push(c);
  const order = [...docs.keys()].sort();
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const used = new Set<string>();
  const plan: Chunk[][] = [];
  const capacity = chunks.length * 2;
  for (let i = 0; plan.length < requests && i < capacity * 2; i++) {
    const doc = docs.get(order[i % order.length])!;
    const pair = plan.length % 2 === 1 && doc.length > 1;
    const first = Math.floor(random() * (pair ? doc.length - 1 : doc.length));
    const group = pair ? [doc[first], doc[first + 1]] : [doc[first]];
    const key = group.map((c) => c.id).join(" ");
    if (used.has(key)) continue;
    used.add(key);
    plan.push(group);
  }
  return plan;
}

/** A task's id: from its question and evidence, so a rerun recognises the tasks it kept before. */
export function synthTaskId(question: string, chunks: readonly string[]): string {
  return `synth-${createHash("sha256").update(JSON.stringify([question.trim(), [...chunks].sort()])).digest("hex").slice(0, 12)}`;
}

function engineScheduler(engine: Engine, policy: Policy): void {
  engine.schedulerFor(policySchedulerId(policy), policy.limits);
}

function policyRequest(policy: Policy, system: string, messages: ChatMessage[]) {
  return { model: policy.model, system, messages, temperature: policy.params.temperature ?? 0.7, topP: policy.params.topP, maxTokens: policy.params.maxTokens ?? 2048, seed: policy.params.seed };
}

/** Drafts one task: asks, reads the YAML (sending an unreadable answer back), then the checks that need no judge. */
async function draftOne(request: number, group: Chunk[], byId: Map<string, Chunk>, options: SynthOptions, seed: number, usage: Usage): Promise<Drafted> {
  const retries = options.parseRetries ?? 2;
  const messages: ChatMessage[] = [{ role: "user", content: synthUserPrompt(group) }];
  let problems: string[] = [];
  for (let attempt = 0; attempt <= retries; attempt++) {
    let text: string;
    try {
      const { response, usage: used } = await options.engine.complete(options.drafter.provider, policyRequest(options.drafter, SYNTH_SYSTEM_PROMPT, messages), {
        keyExtra: { purpose: "env-synth", seed, request, attempt },
        scheduler: policySchedulerId(options.drafter),
        signal: options.signal,
        price: options.drafter.price,
      });
      addUsage(usage, used);
      text = response.refusal ? "" : response.text;
      if (response.refusal) problems = [`the model refused: ${response.refusal}`];
    } catch (e) {
      const err = toRubricateError(e);
      if (err.code === "ABORTED") throw err;
      return { request, group, error: { request, chunks: ids(group), code: err.code, message: `drafting call failed: ${err.message}` } };
    }
    const read = text ? readDraft(text) : { problems };
    if ("draft" in read) return checkDraft(request, group, read.draft, byId, options);
    problems = read.problems;
    messages.push({ role: "assistant", content: text || "(refused)" }, { role: "user", content: synthRepairPrompt(problems) });
  }
  return { request, group, error: { request, chunks: ids(group), code: "PARSE", message: `the model's answer could not be read after ${retries} retr${retries === 1 ? "y" : "ies"}: ${problems.join("; ")}` } };
}

/** The drafted task out of the model's text, or what is wrong with it. */
export function readDraft(text: string): { draft: SynthDraft } | { problems: string[] } {
  let data: unknown;
  try {
    data = parseYamlSource(unfence(text), { filename: "synth" }).data;
  } catch (e) {
    return { problems: [`the answer is not valid YAML: ${isRubricateError(e) ? e.message : String(e)}`] };
  }
  const parsed = SynthDraftSchema.safeParse(data);
  if (!parsed.success) return { problems: issueLines(parsed.error, { root: "the answer" }) };
  return { draft: parsed.data };
}

/** The checks a drafted task passes before any judge is asked: cited passages shown, criteria clean. */
function checkDraft(request: number, group: Chunk[], draft: SynthDraft, byId: Map<string, Chunk>, options: SynthOptions): Drafted {
  const shown = new Set(group.map((c) => c.id));
  const bad = draft.chunks.filter((id) => !shown.has(id));
  if (bad.length > 0) {
    const detail = bad.map((id) => `"${id}" ${byId.has(id) ? "was not among the passages shown" : "names no passage"}`).join("; ");
    return { request, group, rejection: rejection(request, "bad-chunk-id", detail, draft) };
  }
  const evaluated = evaluateDraft(stringify({ criteria: draft.criteria }), { inputs: ["prompt", "response"] }, { accept: "clean" });
  if ("problems" in evaluated) return { request, group, rejection: rejection(request, "lint", evaluated.problems.join("; "), draft) };
  const criteria = uniqueCriterionIds(evaluated.rubric.criteria, options.reservedCriterionIds ?? []);
  return { request, group, draft, criteria, id: synthTaskId(draft.question, draft.chunks) };
}

/** The judge's checks: the answer is in the cited passages; optionally, not given without them. */
async function judgeOne(
  d: Extract<Drafted, { draft: SynthDraft }>,
  byId: Map<string, Chunk>,
  options: SynthOptions,
  seed: number,
  usage: Usage,
): Promise<{ task: SynthTask } | { rejection: SynthRejection } | { error: SynthError }> {
  const cited = d.draft.chunks.map((id) => byId.get(id)!);
  const support = counted(await supportedBy(d.draft, cited, options.judge, options.signal), usage);
  if ("error" in support) return { error: { request: d.request, chunks: ids(d.group), code: "JUDGE", message: `support check: ${support.error}` } };
  if (!support.pass) return { rejection: rejection(d.request, "unsupported", `the judge did not find the answer in ${d.draft.chunks.join(", ")}${support.reasoning ? `: ${support.reasoning}` : ""}`, d.draft) };
  const weak = counted(await criteriaDiscriminate(d.draft, d.criteria, options.judge, options.signal), usage);
  if ("error" in weak) return { error: { request: d.request, chunks: ids(d.group), code: "JUDGE", message: `criteria check: ${weak.error}` } };
  if (!weak.pass) return { rejection: rejection(d.request, "weak-criteria", weak.reasoning ?? "", d.draft) };
  let closedBook: string | undefined;
  if (options.closedBook) {
    const probe = options.closedBook;
    try {
      const { response, usage: used } = await options.engine.complete(probe.provider, policyRequest(probe, CLOSED_BOOK_SYSTEM_PROMPT, [{ role: "user", content: d.draft.question }]), {
        keyExtra: { purpose: "env-synth-closed-book" },
        scheduler: policySchedulerId(probe),
        signal: options.signal,
        price: probe.price,
      });
      addUsage(usage, used);
      closedBook = response.text;
    } catch (e) {
      const err = toRubricateError(e);
      if (err.code === "ABORTED") throw err;
      return { error: { request: d.request, chunks: ids(d.group), code: err.code, message: `closed-book probe call failed: ${err.message}` } };
    }
    const match = counted(await matchesReference(d.draft, closedBook, options.judge, options.signal), usage);
    if ("error" in match) return { error: { request: d.request, chunks: ids(d.group), code: "JUDGE", message: `closed-book check: ${match.error}` } };
    if (match.pass) return { rejection: rejection(d.request, "closed-book", `answered without the documents: ${oneLine(closedBook)}`, d.draft) };
  }
  const source = byId.get(d.draft.chunks[0])!.doc;
  const synth: SynthProvenance = { chunks: d.draft.chunks, shown: ids(d.group), model: options.drafter.id, request: d.request, seed, ...(closedBook !== undefined ? { closedBook } : {}) };
  return { task: { id: d.id, inputs: { question: d.draft.question.trim(), source }, answer: d.draft.answer.trim(), criteria: d.criteria, meta: { synth } } };
}

function counted(answer: CheckAnswer, usage: Usage): CheckAnswer {
  if (answer.usage) addUsage(usage, answer.usage);
  return answer;
}

function rejection(request: number, reason: RejectReason, detail: string, draft: Pick<SynthDraft, "question" | "answer" | "chunks">): SynthRejection {
  return { request, reason, detail, question: draft.question, answer: draft.answer, chunks: draft.chunks };
}

const oneLine = (text: string) => (text.length > 160 ? `${text.slice(0, 157)}…` : text).replace(/\s+/g, " ");

const ids = (chunks: readonly Chunk[]) => chunks.map((c) => c.id);
