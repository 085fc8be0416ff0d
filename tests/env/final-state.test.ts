import { expect, it } from "vitest";
import { runFinalStateChecks } from "../../src/env/final-state.js";
import { createSandbox } from "../../src/sandbox/index.js";
import { needsBubblewrap } from "../sandbox/helpers.js";
import { sandboxTraces } from "../sandbox/traces.js";

const bwrap = needsBubblewrap();
const isRoot = process.getuid?.() === 0;

bwrap.describe("final-state checks", () => {
  it("run on a fresh, writable copy of the agent's folder (its chmods undone), as another user where rubricate is root", async () => {
    const agent = await createSandbox({ limits: { commandTimeoutMs: 5000 } });
    try {
      await agent.writeFile("greet.sh", "echo hi\n");
      await agent.writeFile("sub/data.txt", "kept\n");
      const agentUid = (await agent.exec("id -u")).stdout.trim();
      // The agent locks its folder down: nothing may be written there, the script cannot be read back by others.
      expect((await agent.exec("chmod 555 /work /work/sub && chmod 500 greet.sh && touch /work/x")).exitCode).not.toBe(0);
      const fields = await runFinalStateChecks({
        agent,
        open: () => createSandbox({ limits: { commandTimeoutMs: 5000 } }),
        checks: {
          writable: { run: "touch /work/probe /work/sub/probe && cat sub/data.txt && sh greet.sh" },
          uid: { run: "id -u" },
          answer: { run: 'printf %s "$SUBMITTED"' },
          data: { file: "sub/data.txt" },
        },
        inputs: {},
        submitted: "$(id)",
        signal: new AbortController().signal,
      });
      expect(fields).toMatchObject({ writable: "kept\nhi", writable_exit_code: 0, answer: "$(id)", data: "kept" });
      if (isRoot) expect(fields.uid).not.toBe(agentUid);
      // The agent's own folder is as it left it: the checks ran elsewhere.
      expect((await agent.exec("test -e /work/probe")).exitCode).not.toBe(0);
    } finally {
      await agent.destroy();
    }
    expect(sandboxTraces().folders).toEqual([]);
  });
});
