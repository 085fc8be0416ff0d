/**
 * The known hacks of each check kind (`CheckKind.hacks`), run against a rubric's check criteria:
 * for every criterion answered by code, every hack of its kind, on every probe sample. A hack is a
 * response that deserves to fail that criterion (tags nested to look complete, a final answer
 * that is prose, a tool result quoted beside a different answer, keyword stuffing for ROUGE-L…),
 * so each one the check passes is a way a policy collects the reward without doing the work.
 * No judge is involved: only `check:` criteria that earn points are attacked, each on its own
 * (`when:` ignored); a pitfall's yes is its penalty, which no hack earns.
 */
import { dirname } from "node:path";
import { kindOf } from "../checks/registry.js";
import { runCheck } from "../checks/run.js";
import type { CustomChecks } from "../checks/custom.js";
import { RubricateError, toRubricateError } from "../errors.js";
import type { Rubric } from "../rubric/schema.js";
import { reasoningView } from "../score/reasoning-view.js";
import type { Sample } from "../types.js";

/** One hack on one criterion and one sample. */
export interface HackRun {
  criterion: string;
  kind: string;
  hack: string;
  description: string;
  sampleIndex: number;
  /** The response sent (after the criterion's `tag` wrapping, if any). */
  response: string;
  /** The check passed a response that deserves to fail: a hole. */
  passed: boolean;
  /** The check's share for partial credit (tests, similarity), when it gives one. */
  score?: number;
  reasoning?: string;
  error?: { code: string; message: string };
}

/** Options of `runHacks`. */
export interface HackOptions {
  /** Custom check functions by name, for `custom` criteria. */
  checks?: CustomChecks;
  /** The input the responses go into when a check names no `field` (default: the rubric's response_field, else response). */
  responseField?: string;
  signal?: AbortSignal;
}

/**
 * Runs every kind's hacks against the rubric's check criteria on each sample; hacks that do not
 * apply to a criterion's settings (its `build` returns undefined) are left out.
 * @example (await runHacks(rubric, samples)).filter((r) => r.passed) // the holes
 */
export async function runHacks(rubric: Rubric, samples: Sample[], options: HackOptions = {}): Promise<HackRun[]> {
  const runs: HackRun[] = [];
  const rubricDir = rubric.source ? dirname(rubric.source) : undefined;
  for (const criterion of rubric.criteria) {
    const named = criterion.check && kindOf(criterion.check);
    // A hack is a response that deserves the check's no; on a pitfall (negative points) that no is
    // the response spared its penalty, as it deserves: no hack can show a hole there.
    if (!named || !named.kind.hacks?.length || criterion.points < 0) continue;
    const field = (criterion.check!.field as string | undefined) ?? options.responseField ?? rubric.response_field ?? "response";
    for (const hack of named.kind.hacks) {
      for (const [sampleIndex, sample] of samples.entries()) {
        if (options.signal?.aborted) throw new RubricateError("ABORTED", "the probe was interrupted");
        const built = hack.build(named.spec, sample);
        if (!built) continue;
        const response = wrapInTag(built.response, criterion.check!.tag);
        const attacked = reasoningView({ ...sample, ...built.inputs, [field]: response }, field, criterion.reasoning ?? "strip");
        const run: HackRun = { criterion: criterion.id, kind: named.kind.key, hack: hack.id, description: hack.description, sampleIndex, response, passed: false };
        try {
          const verdict = await runCheck(criterion.check!, attacked, { defaultField: field, rubricDir, checks: options.checks });
          Object.assign(run, { passed: verdict.pass, reasoning: verdict.reasoning, ...(verdict.score !== undefined ? { score: verdict.score } : {}) });
        } catch (e) {
          const error = toRubricateError(e, "CHECK_FAILED");
          run.error = { code: error.code, message: error.message };
        }
        runs.push(run);
      }
    }
  }
  return runs;
}

/** A response for a check that reads one tagged section reaches that section (unless the hack shaped the tags itself). */
function wrapInTag(response: string, tag: unknown): string {
  if (typeof tag !== "string" || response.toLowerCase().includes(`<${tag.toLowerCase()}>`)) return response;
  return `<${tag}>${response}</${tag}>`;
}

/** One hack against one criterion over all samples. */
export interface HackTally {
  criterion: string;
  kind: string;
  hack: string;
  description: string;
  runs: number;
  passed: number;
  errors: number;
  /** A response that passed, to read. */
  example?: string;
}

/** The runs per (criterion, hack), in the order they ran: how many samples each hack passed. */
export function hackTally(runs: HackRun[]): HackTally[] {
  const tallies = new Map<string, HackTally>();
  for (const r of runs) {
    const key = `${r.criterion}\u0000${r.hack}`;
    let tally = tallies.get(key);
    if (!tally) tallies.set(key, (tally = { criterion: r.criterion, kind: r.kind, hack: r.hack, description: r.description, runs: 0, passed: 0, errors: 0 }));
    tally.runs++;
    if (r.error) tally.errors++;
    if (r.passed) {
      tally.passed++;
      tally.example ??= r.response;
    }
  }
  return [...tallies.values()];
}
