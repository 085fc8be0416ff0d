/**
 * The `tests` check against a policy that attacks it: every known hack (src/checks/code/hacks.ts)
 * scores 0 in the bubblewrap sandbox, every honest solution 1. Any change to the harness must
 * keep this file green.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { setCodeRunner } from "../../src/checks/code/spec.js";
import { CODE_HACKS, CODE_HONEST, taskOf, type CodeHack } from "../../src/checks/code/hacks.js";
import { bubblewrapCodeRunner, type CodeRunner } from "../../src/checks/code/runner.js";
import { runCheck } from "../../src/checks/run.js";
import { needsBubblewrap, needsPython } from "../sandbox/helpers.js";

const bwrap = needsBubblewrap();
const python = needsPython();

const fence = (hack: CodeHack) => "```" + hack.language + "\n" + hack.solution + "```";
const score = async (hack: CodeHack) => {
  const task = taskOf(hack);
  const verdict = await runCheck({ tests: { language: task.language, tests: task.tests, reward: "share", timeout_ms: 30_000, test_timeout_ms: 5000 } }, { response: fence(hack) });
  return { score: verdict.score, reasoning: verdict.reasoning };
};

let previous: CodeRunner | undefined;
beforeAll(() => void (previous = setCodeRunner(undefined)));
afterAll(() => void setCodeRunner(previous));

bwrap.describe("tests check under attack (bubblewrap)", () => {
  python.describe("in the sandbox", () => {
    for (const hack of CODE_HACKS) {
      it.concurrent(`${hack.id} scores 0 (${hack.why})`, async () => {
        const result = await score(hack);
        expect(result, result.reasoning).toMatchObject({ score: 0 });
      }, 60_000);
    }
    for (const honest of CODE_HONEST) {
      it.concurrent(`honest ${honest.id} scores 1 (${honest.why})`, async () => {
        const result = await score(honest);
        expect(result, result.reasoning).toMatchObject({ score: 1 });
      }, 60_000);
    }
    it("the oracle attacks are real: where the tests do leak into the solution's folder, they earn points", async () => {
      const leaky: CodeRunner = {
        name: "leaky",
        start: (request) => bubblewrapCodeRunner().start({ ...request, files: { ...request.files, "notes.txt": [...taskOf(CODE_HACKS[0]).tests, ...taskOf({ ...CODE_HACKS[0], language: "javascript" }).tests].join("\n") } }),
      };
      const before = setCodeRunner(leaky);
      try {
        for (const id of ["py-oracle", "js-oracle"]) {
          const result = await score(CODE_HACKS.find((h) => h.id === id)!);
          expect(result.score, `${id}: ${result.reasoning}`).toBeGreaterThan(0);
        }
      } finally {
        setCodeRunner(before);
      }
    }, 60_000);
  });
});
