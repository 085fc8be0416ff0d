/**
 * `math`: the final answer equals a reference mathematically. The kind's settings and its run
 * live with the math reader (../math/check.ts); this file adds what the registry derives from,
 * including the known hacks `rubricate probe` tries (../math/hacks.ts: boxed lists, chains,
 * systems, rounding, percent, several boxes), each aimed at the reference it names.
 *
 * rubric:  check: { math: { expected: "{{answer}}" } }
 */
import { referenceCases } from "../hacks.js";
import { defineCheck } from "../kind.js";
import { mathCheck, type MathSpec } from "../math/check.js";
import { MATH_HACKS } from "../math/hacks.js";

const hacks = referenceCases<MathSpec>(
  MATH_HACKS.map((h) => ({ id: `math-${h.id}`, description: `${h.family}: ${h.why}`, response: h.response, reference: h.reference })),
  (spec) => spec.expected,
);

export const math = defineCheck({ ...mathCheck, tag: true, gradesAnswer: true, hacks });
