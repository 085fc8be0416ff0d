/**
 * The built-in check kinds that share one signature (kind.ts): each is one file with its zod
 * settings, a one-line summary and a `run`. `run.ts` dispatches to them by key.
 */
import { testsCheck } from "./code/check.js";
import { finalAnswerCheck, tagsCheck } from "./format.js";
import type { CheckKind } from "./kind.js";
import { mathCheck } from "./math/check.js";
import { similarityCheck } from "./similarity.js";
import { toolCallsCheck } from "./tools.js";

/** Every check kind a rubric may name under `check:`. */
export const CHECK_KINDS: readonly CheckKind<never>[] = [mathCheck, tagsCheck, finalAnswerCheck, toolCallsCheck, similarityCheck, testsCheck] as unknown as CheckKind<never>[];

const byKey = new Map(CHECK_KINDS.map((k) => [k.key, k]));

/** The built-in kind a check definition uses, with its settings, or undefined for the classic kinds. */
export function builtinKind(check: object): { kind: CheckKind<unknown>; spec: unknown } | undefined {
  for (const key of Object.keys(check)) {
    const kind = byKey.get(key);
    if (kind) return { kind: kind as unknown as CheckKind<unknown>, spec: (check as Record<string, unknown>)[key] };
  }
  return undefined;
}
