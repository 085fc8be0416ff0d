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

// A solution that writes its own protocol line, nested past JSON.stringify's stack, on every fd:
// the referee could not pass it on and threw, so the check was an error (`--errors skip-criterion`
// leaves it out of the reward). Now it is the solution's loss: a failed test, or a load error.
const deepReply = `import sys, os, json
def f(n):
    frame, cid = sys._getframe(1), None
    while frame is not None and cid is None:
        c = frame.f_globals.get("call")
        if isinstance(c, dict) and "id" in c:
            cid = c["id"]
        frame = frame.f_back
    line = '{"id": %s, "ok": ' % json.dumps(cid) + "[" * 200000 + "]" * 200000 + "}\\n"
    for fd in range(0, 30):
        try:
            os.write(fd, line.encode())
        except Exception:
            pass
    return n + 1
`;
const deepReady = `import os
line = '{"ready": ' + "[" * 200000 + "]" * 200000 + "}\\n"
for fd in range(0, 30):
    try:
        os.write(fd, line.encode())
    except Exception:
        pass
def f(n):
    return n + 1
`;
bwrap.describe("tests check: protocol lines the solution writes itself", () => {
  python.describe("in the sandbox", () => {
    it.concurrent("a reply nested 200,000 deep fails the test (SolutionCrashed), not the check", async () => {
      const verdict = await runCheck({ tests: { language: "python", tests: ["assert f(1) == 2"], reward: "share", timeout_ms: 30_000 } }, { response: "```python\n" + deepReply + "```" });
      expect(verdict, verdict.reasoning).toMatchObject({ pass: false, score: 0, reasoning: expect.stringMatching(/cannot be passed on/) });
    }, 60_000);
    it.concurrent("a ready line nested 200,000 deep is a load error, not the check's", async () => {
      const verdict = await runCheck({ tests: { language: "python", tests: ["assert f(1) == 2"], reward: "share", timeout_ms: 30_000 } }, { response: "```python\n" + deepReady + "```" });
      expect(verdict, verdict.reasoning).toMatchObject({ pass: false, score: 0, reasoning: expect.stringMatching(/failed before any test ran: .*cannot be passed on/) });
    }, 60_000);
  });
});
