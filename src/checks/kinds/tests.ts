/**
 * `tests`: run the response's code against the task's unit tests. The kind's settings are in
 * ../code/spec.ts; its run is the harness (../code/check.ts), imported on the first run: the
 * harness, its runners and the sandbox are ~80 kB that every start-up of the CLI and of the
 * package would load otherwise, for rubrics that mostly have no `tests` check. It runs code, so a
 * client may never send one (not pure).
 *
 * Its known hacks (../code/hacks.ts: forged result lines, an `__eq__` that claims everything,
 * patched `assert`, reading the tests or the nonce, …) are tried by `rubricate probe` against the
 * rubric's own tests, as fenced code in the criterion's language. Hacks that would harm the machine
 * outside a sandbox (signals to the parent) are never among them: probe may run unsandboxed.
 *
 * rubric:  check: { tests: { language: python, tests: "{{test_list}}", reward: share } }
 */
import { CODE_HACKS } from "../code/hacks.js";
import { TestsSpec } from "../code/spec.js";
import type { CheckHack } from "../kind.js";
import { defineCheck, runOnFirstUse } from "../kind.js";

const hacks: CheckHack<TestsSpec>[] = CODE_HACKS.filter((h) => !h.sandboxOnly).map((h) => ({
  id: `tests-${h.id}`,
  description: h.why,
  build: (spec) => (spec.language === h.language ? { response: `\`\`\`${h.language}\n${h.solution}\`\`\`` } : undefined),
}));

export const tests = defineCheck<TestsSpec>({
  key: "tests",
  spec: TestsSpec,
  summary: "the response's code passes the task's unit tests (Python, JavaScript, TypeScript); all or a share",
  tag: true,
  gradesAnswer: true,
  hacks,
  run: runOnFirstUse(async () => (await import("../code/check.js")).runTests),
});
