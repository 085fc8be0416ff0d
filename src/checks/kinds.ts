/**
 * The one table of check kinds. Each kind is one file in kinds/ (a `CheckKind`: its key, settings,
 * summary, run and hooks); the rubric schema (schema.ts), load-time validation (validate.ts),
 * running (run.ts), lint (rubric/lint-checks.ts), the per-sample allow-list
 * (bridge/sample-criteria.ts), probe fixes and hacks (probe/) and the docs table (docs.ts) are all
 * derived from this list. Adding a kind: its file, its tests, and one line here.
 */
import type { AnyCheckKind } from "./kind.js";
import { contains } from "./kinds/contains.js";
import { custom } from "./kinds/custom.js";
import { equals } from "./kinds/equals.js";
import { finalAnswer } from "./kinds/final-answer.js";
import { jsonSchema } from "./kinds/json-schema.js";
import { length } from "./kinds/length.js";
import { math } from "./kinds/math.js";
import { notContains } from "./kinds/not-contains.js";
import { number } from "./kinds/number.js";
import { regex } from "./kinds/regex.js";
import { similarity } from "./kinds/similarity.js";
import { tags } from "./kinds/tags.js";
import { tests } from "./kinds/tests.js";
import { toolCalls } from "./kinds/tool-calls.js";

/** Every check kind a rubric may name under `check:`, in the order the schema and the docs list them. */
export const CHECK_KINDS: readonly AnyCheckKind[] = [regex, contains, notContains, equals, jsonSchema, number, length, custom, math, tags, finalAnswer, toolCalls, similarity, tests];
