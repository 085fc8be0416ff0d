/**
 * `tests`: run the response's code against the task's unit tests. The kind's settings and its
 * run live with the harness (../code/check.ts); this file adds what the registry derives from.
 * It runs code, so a client may never send one (not pure).
 *
 * rubric:  check: { tests: { language: python, tests: "{{test_list}}", reward: share } }
 */
import { testsCheck } from "../code/check.js";
import { defineCheck } from "../kind.js";

export const tests = defineCheck({ ...testsCheck, tag: true, gradesAnswer: true });
