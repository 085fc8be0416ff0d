/**
 * `math`: the final answer equals a reference mathematically. The kind's settings and its run
 * live with the math reader (../math/check.ts); this file adds what the registry derives from.
 *
 * rubric:  check: { math: { expected: "{{answer}}" } }
 */
import { defineCheck } from "../kind.js";
import { mathCheck } from "../math/check.js";

export const math = defineCheck({ ...mathCheck, tag: true, gradesAnswer: true });
