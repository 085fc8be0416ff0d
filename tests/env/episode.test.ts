import { expect, it } from "vitest";
import { openCache } from "../../src/engine/cache/index.js";
import { createEngine } from "../../src/engine/engine.js";
import { openEpisode } from "../../src/env/episode.js";
import { parseEnvironment } from "../../src/env/load.js";
import { needsBubblewrap, needsPython } from "../sandbox/helpers.js";
import { sandboxTraces } from "../sandbox/traces.js";

const bwrap = needsBubblewrap();
const python = needsPython();
const isRoot = process.getuid?.() === 0;

// Only the REPL outlives a tool call: a bash command's processes die with its pid namespace.
const ENV = `
id: repl-left-behind
dataset: [{ id: t0, inputs: {} }]
harness: { prompt: "go", max_turns: 4 }
sandbox:
  tools: [python, submit]
  repl: {}
  limits: { processes: 16, command_timeout_ms: 5000 }
  state:
    note: { file: note.txt }
    listed: { run: "ls" }
rubric:
  id: r
  inputs: [note]
  criteria:
    - { id: noted, check: { field: note, equals: "mine" }, points: 1 }
`;

// The REPL leaves children that sleep (no CPU) and hold every process its user may have, and a
// thread that locks /work again and again: the archive of the work folder can start neither.
const LEAVE_BEHIND = `
import os, threading, time
open("/work/note.txt", "w").write("mine")
def lock():
    while True:
        os.chmod("/work", 0)
        time.sleep(0.0005)
threading.Thread(target=lock, daemon=True).start()
held = 0
while True:
    try:
        if os.fork() == 0:
            time.sleep(10**6)
            os._exit(0)
        held += 1
    except OSError:
        break
print("held", held)
`;

bwrap.describe("an episode's end", () => python.describe("with a Python REPL", () => {
  it("stops the agent's REPL, and all it started, before the final-state checks archive its work folder", async () => {
    const env = await parseEnvironment(ENV, { baseDir: process.cwd() });
    const engine = createEngine({ cache: openCache({ path: false }), limits: { maxConcurrency: 1, maxRetries: 0, timeoutMs: 10_000, backoffBaseMs: 5, backoffMaxMs: 20 } });
    const episode = await openEpisode(env, env.tasks[0], { engine });
    try {
      const cell = await episode.runTool({ id: "c1", name: "python", arguments: JSON.stringify({ code: LEAVE_BEHIND }) });
      expect(cell.result).toMatch(isRoot ? /held [1-9]/ : /held/);
      const fields = await episode.finish([], "", "submitted");
      expect(fields).toMatchObject({ note: "mine", listed: expect.stringContaining("note.txt"), listed_exit_code: 0 });
    } finally {
      await episode.close();
    }
    expect(sandboxTraces()).toEqual({ folders: [], mounts: [], processes: [], groups: [] });
  }, 60_000);
}));
