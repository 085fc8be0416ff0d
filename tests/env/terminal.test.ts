/** The terminal tools over a sandbox: a command killed at its time limit is a failed call in the record, not only in the text (issue 27, Low). */
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeExec, TERMINAL_TOOLS, terminalToolImpls } from "../../src/env/terminal.js";
import { executeToolCall } from "../../src/env/tools.js";
import type { HookContext } from "../../src/env/types.js";
import { bubblewrapBackend } from "../../src/sandbox/bubblewrap/index.js";
import type { Sandbox } from "../../src/sandbox/types.js";
import { needsBubblewrap } from "../sandbox/helpers.js";

const bwrap = needsBubblewrap();

bwrap.describe("bash", () => {
  let box: Sandbox;
  beforeAll(async () => {
    box = await bubblewrapBackend.create({ limits: { commandTimeoutMs: 300 } });
  });
  afterAll(async () => box?.destroy());

  it("a command past the sandbox's time limit: the model reads why, the record's error is timeout", async () => {
    const impls = terminalToolImpls(["bash"], box, {});
    const ctx = { signal: new AbortController().signal } as HookContext;
    const slow = await executeToolCall({ id: "c1", name: "bash", arguments: JSON.stringify({ command: "sleep 5" }) }, [TERMINAL_TOOLS.bash], impls, ctx, 20_000);
    expect(slow.error).toBe("timeout");
    expect(slow.result).toMatch(/killed: the command ran longer than 300 ms/);
    const quick = await executeToolCall({ id: "c2", name: "bash", arguments: JSON.stringify({ command: "echo hi" }) }, [TERMINAL_TOOLS.bash], impls, ctx, 20_000);
    expect(quick.error).toBeUndefined();
    expect(quick.result).toMatch(/stdout:\nhi/);
  });
});

it("the model reads which limit ended a command (the sandbox's memory budget included), or the signal that did", () => {
  const ended = { exitCode: null, signal: "SIGKILL", stdout: "", stderr: "", truncated: false, ms: 5 };
  expect(describeExec({ ...ended, limit: "memory" }, 1000)).toBe("exit code: none\nkilled: memory limit");
  expect(describeExec({ ...ended, limit: "cpu", signal: "SIGXCPU" }, 1000)).toBe("exit code: none\nkilled: CPU time limit");
  expect(describeExec(ended, 1000)).toBe("exit code: none\nkilled by SIGKILL");
});
