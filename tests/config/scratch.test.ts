import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { processAlive, removeScratchOfEndedProcesses, removeScratchOfThisProcess, scratchDir } from "../../src/config/scratch.js";
import { DeferredSpill } from "../../src/engine/batch/spill.js";
import { sortByGroup } from "../../src/distill/sort.js";
import { tempDir } from "../helpers/cli.js";

/** A pid whose process has ended (and was reaped). */
function endedPid(): number {
  const run = spawnSync(process.execPath, ["-e", "0"]);
  return run.pid!;
}

/** This process's pid namespace, as scratch folders are named with it ("0" on a system without /proc). */
const NAMESPACE = existsSync("/proc/self/ns/pid") ? /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))![1] : "0";

/** A folder as a run of `pid` in pid namespace `namespace` would have left it (null: named as before namespaces were), with a file in it. */
function leftBy(root: string, purpose: string, pid: number, namespace: string | null = NAMESPACE): string {
  const dir = join(root, `rubricate-${purpose}-${pid}-${namespace === null ? "" : `${namespace}-`}abc123`);
  mkdirSync(dir);
  writeFileSync(join(dir, "run-0.jsonl"), "{}\n");
  return dir;
}

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

describe("scratch folders of processes that have ended", () => {
  it("processAlive: this process and a running child are alive, a reaped one is not", () => {
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    children.push(child);
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(child.pid!)).toBe(true);
    expect(processAlive(endedPid())).toBe(false);
  });

  it("a new folder removes those of ended processes of its purpose, and keeps live ones, other purposes and other names", () => {
    const root = tempDir("rubricate-scratch-");
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    children.push(child);
    const ended = leftBy(root, "sort", endedPid());
    const mine = leftBy(root, "sort", process.pid);
    const live = leftBy(root, "sort", child.pid!);
    const otherPurpose = leftBy(root, "deferred", endedPid());
    const unnamed = join(root, "rubricate-sort-abc");
    mkdirSync(unnamed);
    const made = scratchDir("sort", root);
    expect(made.startsWith(join(root, `rubricate-sort-${process.pid}-${NAMESPACE}-`))).toBe(true);
    expect([ended, mine, live, otherPurpose, unnamed, made].map(existsSync)).toEqual([false, true, true, true, true, true]);
  });

  it("a pid is judged only in its own pid namespace: another container's folder, or one named before namespaces, is left", () => {
    const root = tempDir("rubricate-scratch-");
    const pid = endedPid();
    const otherNamespace = leftBy(root, "sort", pid, String(Number(NAMESPACE) + 1));
    const older = leftBy(root, "sort", pid, null);
    const here = leftBy(root, "sort", pid);
    expect(removeScratchOfEndedProcesses("sort", root)).toBe(1);
    expect([otherNamespace, older, here].map(existsSync)).toEqual([true, true, false]);
  });

  it("removeScratchOfThisProcess removes only this process's folders (a batch worker that died inside it)", () => {
    const root = tempDir("rubricate-scratch-");
    const mine = leftBy(root, "deferred", process.pid);
    const mineNamedBefore = leftBy(root, "deferred", process.pid, null);
    const samePidElsewhere = leftBy(root, "deferred", process.pid, String(Number(NAMESPACE) + 1));
    const ended = leftBy(root, "deferred", endedPid());
    expect(removeScratchOfThisProcess("deferred", root)).toBe(2);
    expect([mine, mineNamedBefore, samePidElsewhere, ended].map(existsSync)).toEqual([false, false, true, true]);
    expect(removeScratchOfEndedProcesses("deferred", root)).toBe(1);
    expect(existsSync(ended)).toBe(false);
  });

  it("a root that cannot be read removes nothing and throws nothing", () => {
    expect(removeScratchOfEndedProcesses("sort", join(tempDir("rubricate-scratch-"), "missing"))).toBe(0);
  });
});

describe("the runs that make scratch folders sweep those a killed run left", () => {
  it("a batch run's deferred requests: a new spill removes a killed process's spill folder", () => {
    const root = tempDir("rubricate-scratch-");
    const before = process.env.TMPDIR;
    process.env.TMPDIR = root;
    try {
      const killed = leftBy(root, "deferred", endedPid());
      new DeferredSpill({ encode: () => "{}", framing: { head: "", separator: "\n", tail: "\n" } }, { maxItems: 10, maxBytes: 1000 });
      expect(existsSync(killed)).toBe(false);
      expect(readdirSync(root).filter((n) => n.startsWith(`rubricate-deferred-${process.pid}-${NAMESPACE}-`))).toHaveLength(1);
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
  });

  it("an external sort: a killed process's run files go when the next sort starts; the sort's own folder goes when it ends", async () => {
    const root = tempDir("rubricate-scratch-");
    const killed = leftBy(root, "sort", endedPid());
    async function* rows() {
      for (let i = 0; i < 5; i++) yield { task: String(i % 2), i };
    }
    const sorted = [];
    for await (const row of sortByGroup(rows(), (r) => String(r.task), { runRows: 2, dir: root })) sorted.push(row.i);
    expect(sorted).toEqual([0, 2, 4, 1, 3]);
    expect(existsSync(killed)).toBe(false);
    expect(readdirSync(root)).toEqual([]);
  });
});
