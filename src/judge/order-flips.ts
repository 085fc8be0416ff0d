/**
 * Order effects in batched judging: earlier verdicts in one context pull later ones. Each
 * sample's questions are asked three times: in the rubric's order, again in the same order (a
 * fresh call: the repeat baseline, how often the judge changes its mind with nothing changed), and
 * rotated by half (every question, middle ones included, moves by half the list). Flips beyond the
 * baseline — rotated disagreements minus repeat disagreements — are what the order itself causes;
 * a judge that is merely noisy flips as often on the repeat and shows none.
 */
import pLimit from "p-limit";
import { RubricateError } from "../errors.js";
import type { Rubric } from "../rubric/schema.js";
import { asksAlone } from "../rubric/judge-mode.js";
import { meanWithInterval } from "../stats/interval.js";
import { renderTemplate } from "../text/template.js";
import type { Sample } from "../types.js";
import type { Judge, JudgeQuestion } from "./types.js";

/** Flips of one criterion (or of all, under id `all`). */
export interface FlipRow {
  id: string;
  /** Samples where all three asks gave a verdict. */
  n: number;
  /** Verdicts that changed when the same order was asked again (the baseline). */
  repeatFlips: number;
  /** Verdicts that changed when the order was rotated. */
  flips: number;
  /** flips / n. */
  rate: number | null;
  /** repeatFlips / n. */
  repeatRate: number | null;
  /** (flips − repeatFlips) / n with a bootstrap 95% interval over the items: what the order causes. */
  beyond: { value: number; low: number; high: number } | null;
  /** Samples where any ask gave an error instead of a verdict. */
  errors: number;
}

/** What `orderFlips` measured. */
export interface OrderFlips {
  criteria: FlipRow[];
  all: FlipRow;
}

/** The questions rotated by half: position i goes to i − ⌈n/2⌉ (mod n), so a middle question lands at an end. */
export function rotateHalf<T>(items: readonly T[]): T[] {
  const k = Math.ceil(items.length / 2);
  return [...items.slice(k), ...items.slice(0, k)];
}

/**
 * Asks each sample's LLM questions three times through the judge (its cache and batching;
 * `judge_mode`/`max_criteria` apply, so a criterion asked alone cannot flip): rubric order, the
 * same order again as a separate call (`repeat: 1`, its own cache key), and rotated by half.
 * Checks and `when` conditions are ignored: every question is asked.
 * @example const f = await orderFlips(rubric, samples, { judge }); console.log(orderFlipsMarkdown(f))
 */
export async function orderFlips(rubric: Rubric, samples: readonly Sample[], options: { judge: Judge; concurrency?: number; signal?: AbortSignal; seed?: number }): Promise<OrderFlips> {
  const criteria = rubric.criteria.filter((c) => c.question !== undefined);
  if (criteria.length < 2) throw new RubricateError("BAD_INPUT", `rubric ${rubric.id} has ${criteria.length} LLM question(s): order needs at least two`);
  const diffs = new Map<string, number[]>(criteria.map((c) => [c.id, []]));
  const counts = new Map(criteria.map((c) => [c.id, { repeatFlips: 0, flips: 0, errors: 0 }]));
  const limit = pLimit(options.concurrency ?? 4);
  await Promise.all(
    samples.map((sample) =>
      limit(async () => {
        const questions: JudgeQuestion[] = criteria.map((c) => ({
          id: c.id, question: renderTemplate(c.question!, sample), examples: c.examples, version: c.version,
          ...(c.quote ? { quote: true } : {}), ...(asksAlone(c, rubric.judge_mode) ? { alone: true } : {}),
        }));
        const ask = (qs: JudgeQuestion[], repeat?: number) => options.judge.answer({ rubric, sample, questions: qs, ...(repeat ? { repeat } : {}) }, { signal: options.signal });
        const [first, again, rotated] = await Promise.all([ask(questions), ask(questions, 1), ask(rotateHalf(questions))]);
        for (const q of questions) {
          const count = counts.get(q.id)!;
          const [a, b, c] = [first, again, rotated].map((r) => r.verdicts.get(q.id));
          if (!a || !b || !c || a instanceof Error || b instanceof Error || c instanceof Error) {
            count.errors++;
            continue;
          }
          const repeatFlip = a.pass !== b.pass ? 1 : 0;
          const flip = a.pass !== c.pass ? 1 : 0;
          count.repeatFlips += repeatFlip;
          count.flips += flip;
          diffs.get(q.id)!.push(flip - repeatFlip);
        }
      }),
    ),
  );
  const row = (id: string, d: number[], c: { repeatFlips: number; flips: number; errors: number }): FlipRow => {
    const m = meanWithInterval(d, { seed: options.seed ?? 1 });
    return {
      id,
      n: d.length,
      repeatFlips: c.repeatFlips,
      flips: c.flips,
      rate: d.length ? c.flips / d.length : null,
      repeatRate: d.length ? c.repeatFlips / d.length : null,
      beyond: m ? { value: m.mean, low: m.low, high: m.high } : null,
      errors: c.errors,
    };
  };
  const list = criteria.map((c) => row(c.id, diffs.get(c.id)!, counts.get(c.id)!));
  const sum = (k: "repeatFlips" | "flips" | "errors") => list.reduce((s, r) => s + r[k], 0);
  return { criteria: list, all: row("all", [...diffs.values()].flat(), { repeatFlips: sum("repeatFlips"), flips: sum("flips"), errors: sum("errors") }) };
}

/** The flip report as a markdown table. */
export function orderFlipsMarkdown(f: OrderFlips): string {
  const pct = (r: number | null) => (r === null ? "n/a" : `${(100 * r).toFixed(1)}%`);
  const beyond = (b: FlipRow["beyond"]) => (b === null ? "n/a" : `${(100 * b.value).toFixed(1)} pts [${(100 * b.low).toFixed(1)}, ${(100 * b.high).toFixed(1)}]`);
  return [
    "## Order flips (verdicts that change when the questions are rotated, beyond those that change on a same-order repeat)",
    "",
    "| criterion | n | repeat flips | rotated flips | repeat rate | rotated rate | beyond baseline (95% CI) | errors |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...[...f.criteria, f.all].map((r) => `| ${r.id} | ${r.n} | ${r.repeatFlips} | ${r.flips} | ${pct(r.repeatRate)} | ${pct(r.rate)} | ${beyond(r.beyond)} | ${r.errors} |`),
    "",
    "An interval above zero means the position of a question changes its verdict; a judge that is only noisy flips as often on the repeat.",
    "",
  ].join("\n");
}
