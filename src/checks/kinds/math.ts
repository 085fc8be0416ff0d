/**
 * `math`: the final answer equals a reference mathematically. The kind's settings are in
 * ../math/spec.ts; its run is the comparison (../math/check.ts: the reader, LaTeX, the comparer,
 * ~40 kB), imported on the first run, so rubrics without a `math` check never load it. This file
 * adds what the registry derives from, including the known hacks `rubricate probe` tries
 * (../math/hacks.ts: boxed lists, chains, systems, rounding, percent, several boxes), each aimed
 * at the reference it names.
 *
 * rubric:  check: { math: { expected: "{{answer}}" } }
 */
import { referenceCases } from "../hacks.js";
import { defineCheck, runOnFirstUse } from "../kind.js";
import { MATH_HACKS } from "../math/hacks.js";
import { MathSpec } from "../math/spec.js";

const hacks = referenceCases<MathSpec>(
  MATH_HACKS.map((h) => ({ id: `math-${h.id}`, description: `${h.family}: ${h.why}`, response: h.response, reference: h.reference })),
  (spec) => spec.expected,
);

export const math = defineCheck<MathSpec>({
  key: "math",
  spec: MathSpec,
  summary: "final answer mathematically equal to a reference (fractions, radicals, sets, intervals, equations, units)",
  tag: true,
  gradesAnswer: true,
  hacks,
  run: runOnFirstUse(async () => (await import("../math/check.js")).runMath),
});
