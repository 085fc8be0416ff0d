/**
 * Order effects in batched judging: earlier verdicts in one context pull later ones. Asking a
 * sample's questions in the rubric's order and again in reverse, a verdict that changes is a
 * flip; the flip rate per criterion says whether batching is safe for that rubric and judge.
 */
import pLimit from "p-limit";
import { RubricateError } from "../errors.js";
import type { Rubric } from "../rubric/schema.js";
import { asksAlone } from "../rubric/judge-mode.js";
import { renderTemplate } from "../text/template.js";
import type { Sample } from "../types.js";
import type { Judge, JudgeQuestion } from "./types.js";

/** Flips of one criterion (or of all, under id `all`). */
export interface FlipRow {
  id: string;
  /** Samples where both orders gave a verdict. */
  n: number;
  /** Samples whose verdict changed when the order was reversed. */
  flips: number;
  rate: number | null;
  /** Samples where either order gave an error instead of a verdict. */
  errors: number;
}

/** What `orderFlips` measured. */
export interface OrderFlips {
  criteria: FlipRow[];
  all: FlipRow;
}

/**
 * Asks each sample's LLM questions twice — in the rubric's order and reversed — through the
 * judge (its cache and batching; `judge_mode`/`max_criteria` apply, so a criterion asked alone
 * cannot flip), and counts the verdicts that change. Checks and `when` conditions are ignored:
 * every question is asked.
 * @example const f = await orderFlips(rubric, samples, { judge }); console.log(orderFlipsMarkdown(f))
 */
export async function orderFlips(rubric: Rubric, samples: readonly Sample[], options: { judge: Judge; concurrency?: number; signal?: AbortSignal }): Promise<OrderFlips> {
  const criteria = rubric.criteria.filter((c) => c.question !== undefined);
  if (criteria.length < 2) throw new RubricateError("BAD_INPUT", `rubric ${rubric.id} has ${criteria.length} LLM question(s): order needs at least two`);
  const rows = new Map(criteria.map((c) => [c.id, { id: c.id, n: 0, flips: 0, rate: null as number | null, errors: 0 }]));
  const limit = pLimit(options.concurrency ?? 4);
  await Promise.all(
    samples.map((sample) =>
      limit(async () => {
        const questions: JudgeQuestion[] = criteria.map((c) => ({
          id: c.id, question: renderTemplate(c.question!, sample), examples: c.examples, version: c.version,
          ...(c.quote ? { quote: true } : {}), ...(asksAlone(c, rubric.judge_mode) ? { alone: true } : {}),
        }));
        const ask = (qs: JudgeQuestion[]) => options.judge.answer({ rubric, sample, questions: qs }, { signal: options.signal });
        const [forward, backward] = await Promise.all([ask(questions), ask([...questions].reverse())]);
        for (const q of questions) {
          const row = rows.get(q.id)!;
          const a = forward.verdicts.get(q.id);
          const b = backward.verdicts.get(q.id);
          if (!a || !b || a instanceof Error || b instanceof Error) {
            row.errors++;
            continue;
          }
          row.n++;
          if (a.pass !== b.pass) row.flips++;
        }
      }),
    ),
  );
  const list = [...rows.values()].map((r) => ({ ...r, rate: r.n > 0 ? r.flips / r.n : null }));
  const n = list.reduce((s, r) => s + r.n, 0);
  const flips = list.reduce((s, r) => s + r.flips, 0);
  return { criteria: list, all: { id: "all", n, flips, rate: n > 0 ? flips / n : null, errors: list.reduce((s, r) => s + r.errors, 0) } };
}

/** The flip report as a markdown table. */
export function orderFlipsMarkdown(f: OrderFlips): string {
  const pct = (r: number | null) => (r === null ? "n/a" : `${(100 * r).toFixed(1)}%`);
  return [
    "## Order flips (verdicts that change when the questions are asked in reverse order)",
    "",
    "| criterion | n | flips | flip rate | errors |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...[...f.criteria, f.all].map((r) => `| ${r.id} | ${r.n} | ${r.flips} | ${pct(r.rate)} | ${r.errors} |`),
    "",
  ].join("\n");
}
