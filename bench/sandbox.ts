/**
 * Sandbox costs (bubblewrap): start + teardown per rollout, commands per second, and memory with
 * 64 sandboxes alive at once (each holding one sleeping process, like a REPL waiting for input).
 * The ideal for a command is spawning the same program without a sandbox.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { bubblewrapBackend } from "../src/sandbox/bubblewrap/index.js";
import type { Sandbox, SandboxProcess } from "../src/sandbox/types.js";
import { MEASURE_COLUMNS, median, round, type BenchContext, type BenchResult, type MeasureRow as Row } from "./lib/common.js";

const directTrue = () =>
  new Promise<void>((resolve, reject) => {
    const c = spawn("/usr/bin/true", [], { stdio: "ignore" });
    c.on("error", reject);
    c.on("close", () => resolve());
  });

async function timeEach(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

/** Resident memory (kB) of the processes descending from `roots`. */
function treeRssKb(roots: number[]): number {
  const parent = new Map<number, number>();
  for (const p of readdirSync("/proc").filter((x) => /^\d+$/.test(x))) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      parent.set(Number(p), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone
    }
  }
  const inTree = new Set(roots);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parent) if (!inTree.has(pid) && inTree.has(ppid)) (inTree.add(pid), (grew = true));
  }
  let kb = 0;
  for (const pid of inTree) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return kb;
}

/** Runs the sandbox benchmark. */
export async function sandbox(ctx: BenchContext): Promise<BenchResult<Row>> {
  const why = await bubblewrapBackend.unavailable();
  if (why) throw new Error(`sandbox bench needs bubblewrap: ${why}`);
  const n = ctx.quick ? 10 : 40;
  const rows: Row[] = [];
  const direct = median(await timeEach(n, directTrue));

  const lifecycle = median(await timeEach(n, async () => (await bubblewrapBackend.create({})).destroy()));
  rows.push({ measure: "create + destroy (no command)", value: round(lifecycle, 1), unit: "ms", ideal: "goal < 50 ms", ratio: lifecycle < 50 ? "met" : "missed" });
  const rollout = median(
    await timeEach(n, async () => {
      const box = await bubblewrapBackend.create({});
      await box.exec(["/usr/bin/true"]);
      await box.destroy();
    }),
  );
  rows.push({ measure: "create + one command + destroy (a minimal rollout)", value: round(rollout, 1), unit: "ms", ideal: "goal < 50 ms", ratio: rollout < 50 ? "met" : "missed" });

  const box = await bubblewrapBackend.create({});
  const exec = median(await timeEach(n * 2, () => box.exec(["/usr/bin/true"])));
  rows.push({ measure: "one command (`true`) in a sandbox", value: round(exec, 2), unit: "ms", ideal: `${round(direct, 2)} ms unsandboxed spawn`, ratio: `${round(direct / exec, 3)} of ideal` });
  const seconds = ctx.quick ? 1 : 3;
  for (const width of [1, 2]) {
    let done = 0;
    const until = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: width }, async () => {
        while (performance.now() < until) {
          await box.exec("echo hi");
          done++;
        }
      }),
    );
    let directDone = 0;
    const until2 = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: width }, async () => {
        while (performance.now() < until2) {
          await directTrue();
          directDone++;
        }
      }),
    );
    rows.push({ measure: `commands/s, ${width} at a time (sh -c 'echo hi')`, value: round(done / seconds, 0), unit: "/s", ideal: `${round(directDone / seconds, 0)}/s unsandboxed`, ratio: `${round(done / directDone, 3)} of ideal` });
  }
  await box.destroy();

  const count = 64;
  const rssBefore = process.memoryUsage().rss;
  const boxes: Sandbox[] = [];
  const procs: SandboxProcess[] = [];
  const t0 = performance.now();
  for (let i = 0; i < count; i++) boxes.push(await bubblewrapBackend.create({}));
  for (const b of boxes) procs.push(b.spawn(["sleep", "60"]));
  await new Promise((r) => setTimeout(r, 500));
  const startMs = performance.now() - t0;
  const roots = readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .map(Number)
    .filter((p) => {
      try {
        const cmd = readFileSync(`/proc/${p}/cmdline`, "utf8");
        return cmd.startsWith("bwrap") && cmd.includes("rubricate-sandbox-");
      } catch {
        return false;
      }
    });
  const treeKb = treeRssKb(roots);
  const hostDelta = (process.memoryUsage().rss - rssBefore) / 1024;
  const t1 = performance.now();
  await Promise.all(boxes.map((b) => b.destroy()));
  await Promise.all(procs.map((p) => p.exited));
  const destroyMs = performance.now() - t1;
  rows.push({ measure: `${count} sandboxes alive, one sleeping process each: resident memory of their process trees`, value: round(treeKb / 1024, 1), unit: "MiB", ideal: `${round(treeKb / count / 1024, 2)} MiB per sandbox`, ratio: "-" });
  rows.push({ measure: `${count} sandboxes: growth of the host (node) process`, value: round(hostDelta / 1024, 1), unit: "MiB", ideal: "-", ratio: "-" });
  rows.push({ measure: `${count} sandboxes: start all (sequential) / destroy all (parallel)`, value: round(startMs, 0), unit: "ms", ideal: `destroy ${round(destroyMs, 0)} ms`, ratio: "-" });
  return {
    title: "Sandbox (bubblewrap): lifecycle, commands, memory",
    rows,
    columns: MEASURE_COLUMNS,
    notes: [`root: ${process.getuid?.() === 0} (as root each sandbox has its own uid and a tmpfs work folder: one mount + umount per sandbox)`],
  };
}
