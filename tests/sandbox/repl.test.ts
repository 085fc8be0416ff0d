import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { bubblewrapBackend } from "../../src/sandbox/bubblewrap/index.js";
import { startHostBridge, startPythonRepl, type HostBridge, type HostCall, type PythonRepl } from "../../src/sandbox/repl/index.js";
import type { Sandbox } from "../../src/sandbox/types.js";
import { needsBubblewrap, needsPython } from "./helpers.js";

const bwrap = needsBubblewrap();
const python = needsPython();

bwrap.describe("Python REPL in a sandbox", () => {
  python.describe("with python3", () => {
    let box: Sandbox;
    let bridge: HostBridge;
    let repl: PythonRepl;
    const calls: [HostCall, number][] = [];
    beforeAll(async () => {
      bridge = await startHostBridge(async (call, depth) => {
        calls.push([call, depth]);
        return call.prompt === "refuse" ? { error: "no more calls" } : { text: `answer to ${call.prompt}` };
      });
      box = await bubblewrapBackend.create({ binds: [bridge.bind], limits: { commandTimeoutMs: 5000 } });
      bridge.grant(box.user); // as an episode does: the sockets are the sandbox user's and ours only
      await box.writeFile("doc.txt", "x".repeat(2_000_000) + "needle");
      repl = await startPythonRepl(box, { contextFile: "/work/doc.txt", bridge });
    });
    afterAll(async () => {
      repl?.close();
      await box?.destroy();
      await bridge?.close();
    });

    it("keeps variables between cells, loads the context file, shows expressions and errors", async () => {
      expect(await repl.run("n = len(context)\nn")).toMatchObject({ stdout: "2000006\n", error: null });
      expect((await repl.run("context.find('needle') == n - 6")).stdout).toBe("True\n");
      expect((await repl.run("1/0")).error).toBe("ZeroDivisionError: division by zero");
      expect((await repl.run("import sys; sys.exit(3)")).error).toMatch(/SystemExit is not allowed/);
      expect((await repl.run("n")).stdout).toBe("2000006\n");
    });

    it("llm_query reaches the host over the socket of its depth; refusals raise in Python", async () => {
      expect((await repl.run("llm_query('what')")).stdout).toBe("'answer to what'\n");
      expect(calls.at(-1)).toEqual([{ prompt: "what" }, 1]);
      expect((await repl.run("rlm_query('sub', context[:10])")).stdout).toBe("'answer to sub'\n");
      expect(calls.at(-1)).toEqual([{ prompt: "sub", context: "xxxxxxxxxx" }, 1]);
      expect((await repl.run("llm_query('refuse')")).error).toBe("RuntimeError: no more calls");
    });

    it("the bridge's folder and sockets are closed to other local users (issue 27, Medium 2)", async () => {
      const socket = join(bridge.bind.host, "depth-1.sock");
      await bridge.socketFor(1);
      expect(statSync(bridge.bind.host).mode & 0o777).toBe(0o700);
      expect(statSync(socket).mode & 0o777).toBe(0o600);
      if (box.user) expect(statSync(socket).uid).toBe(box.user.uid);
      // Another local user (nobody) cannot connect; needs root to act as them.
      if (process.getuid?.() === 0) {
        const other = spawnSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "python3", "-c", `import socket; s = socket.socket(socket.AF_UNIX); s.connect(${JSON.stringify(socket)})`], { encoding: "utf8" });
        expect(other.status).not.toBe(0);
        expect(other.stderr).toMatch(/Permission denied/);
      }
      expect((await repl.run("print(llm_query('still works'))")).stdout).toContain("answer to still works");
    });

    it("the network stays off inside the REPL", async () => {
      const r = await repl.run("import socket\ntry:\n    socket.create_connection(('1.1.1.1', 80), timeout=1)\nexcept OSError as e:\n    print(type(e).__name__)");
      expect(r.stdout).toMatch(/OSError|ConnectionRefusedError|TimeoutError/);
    });

    it("a cell past its time limit restarts the REPL, losing its variables, and says so", async () => {
      await repl.run("kept = 1");
      const r = await repl.run("import time; time.sleep(30)", { timeoutMs: 500 });
      expect(r.timedOut).toBe(true);
      expect(r.error).toMatch(/restarted and its variables are lost/);
      expect((await repl.run("'kept' in dir()")).stdout).toBe("False\n");
      expect((await repl.run("len(context)")).stdout).toBe("2000006\n");
    });

    it("an aborted cell ends at once, as an aborted bash command does (a loop held its rollout past the time limit); the next cell starts a new REPL", async () => {
      await repl.run("kept = 1");
      const controller = new AbortController();
      const cell = repl.run("open('/work/looping', 'w').close()\nimport time\nwhile True:\n    time.sleep(0.05)", { timeoutMs: 600_000, signal: controller.signal });
      while ((await box.exec("test -f looping")).exitCode !== 0) await new Promise((r) => setTimeout(r, 20));
      controller.abort();
      const r = await cell;
      expect(r).toMatchObject({ timedOut: false, error: expect.stringMatching(/the cell was stopped \(aborted\) before it finished; the next cell starts a new REPL/) });
      expect((await repl.run("'kept' in dir()")).stdout).toBe("False\n");
      expect((await repl.run("len(context)")).stdout).toBe("2000006\n");
      // A cell whose signal fired while it waited its turn does not run.
      expect((await repl.run("open('/work/ran', 'w').close()", { signal: AbortSignal.abort() })).error).toMatch(/stopped \(aborted\)/);
      expect((await box.exec("test -f ran")).exitCode).not.toBe(0);
    });
  });
});
