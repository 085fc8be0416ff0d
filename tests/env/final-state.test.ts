import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { runFinalStateChecks, type CheckerOptions, type FinalStateOptions } from "../../src/env/final-state.js";
import { createSandbox } from "../../src/sandbox/index.js";
import type { Sandbox } from "../../src/sandbox/types.js";
import { which } from "../helpers/system.js";
import { needsBubblewrap, needsPython, TRACE_PROBE } from "../sandbox/helpers.js";
import { sandboxTraces } from "../sandbox/traces.js";

const bwrap = needsBubblewrap();
const python = needsPython();
const isRoot = process.getuid?.() === 0;

/** A checker sandbox with a 5 s command limit, with what the checks ask of it (`guardChecker`). */
const checker = (o: CheckerOptions) => createSandbox({ ...o, limits: { commandTimeoutMs: 5000 } });
/** `agent`'s final-state checks, in a sandbox from `open` (default: `checker`), with no inputs and, unless given, nothing submitted. */
const runChecks = (agent: Sandbox, checks: FinalStateOptions["checks"], o: { open?: FinalStateOptions["open"]; submitted?: string } = {}) =>
  runFinalStateChecks({ agent, open: o.open ?? checker, checks, inputs: {}, submitted: o.submitted, signal: new AbortController().signal });

bwrap.describe("final-state checks", () => {
  it("run on a fresh, writable copy of the agent's folder (its chmods undone), as another user where rubricate is root", async () => {
    const agent = await createSandbox({ limits: { commandTimeoutMs: 5000 } });
    try {
      await agent.writeFile("greet.sh", "echo hi\n");
      await agent.writeFile("sub/data.txt", "kept\n");
      const agentUid = (await agent.exec("id -u")).stdout.trim();
      // The agent locks its folder down: nothing may be written there, the script cannot be read back by others.
      expect((await agent.exec("chmod 555 /work /work/sub && chmod 500 greet.sh && touch /work/x")).exitCode).not.toBe(0);
      const fields = await runChecks(
        agent,
        {
          writable: { run: "touch /work/probe /work/sub/probe && cat sub/data.txt && sh greet.sh" },
          uid: { run: "id -u" },
          answer: { run: 'printf %s "$SUBMITTED"' },
          data: { file: "sub/data.txt" },
        },
        { submitted: "$(id)" },
      );
      expect(fields).toMatchObject({ writable: "kept\nhi", writable_exit_code: 0, answer: "$(id)", data: "kept" });
      if (isRoot) expect(fields.uid).not.toBe(agentUid);
      // The agent's own folder is as it left it: the checks ran elsewhere.
      expect((await agent.exec("test -e /work/probe")).exitCode).not.toBe(0);
    } finally {
      await agent.destroy();
    }
    expect(sandboxTraces().folders).toEqual([]);
  });

  it("files the agent leaves in /work do not run inside the checks: a .pth that exits python3 with 0, a .gitconfig hook, a json.py in the working folder", async () => {
    const agent = await createSandbox({ limits: { commandTimeoutMs: 5000 } });
    try {
      const site = (await agent.exec("python3 -c 'import site; print(site.getusersitepackages())'")).stdout.trim();
      expect(site.startsWith("/work/")).toBe(true);
      // Every python3 would start by running the .pth and exit 0 before the check's own code; git would run fsmonitor.
      await agent.exec(`mkdir -p "${site}" && printf 'import os; os._exit(0)\\n' > "${site}/zz.pth"`);
      await agent.exec(`printf '[core]\\n\\tfsmonitor = "touch /tmp/pwned; false"\\n' > .gitconfig && git init -q repo && echo x > repo/a`);
      await agent.exec(`printf 'import os\\nos._exit(0)\\n' > json.py && printf 'ANSWER = 42\\n' > solution.py`);
      expect((await agent.exec("python3 -c 'import sys; sys.exit(3)'")).exitCode).toBe(0);
      const fields = await runChecks(
        agent,
        {
          failing: { run: "python3 -c 'import sys; print(\"checked\"); sys.exit(3)'" },
          passing: { run: "python3 -c 'print(6 * 7)'" },
          git: { run: "cd repo && git status --short >/dev/null 2>&1; ls /tmp" },
          data: { run: "cat .gitconfig" },
          // A failing check that imports json: the agent's json.py (os._exit(0)) would make it pass.
          stdlib: { run: "python3 -c 'import json, sys; sys.exit(5)'" },
          own: { run: "python3 -c 'import sys; sys.path.append(\"/work\"); import solution; print(solution.ANSWER)'" },
        },
        { submitted: "" },
      );
      expect(fields).toMatchObject({ failing: "checked", failing_exit_code: 3, passing: "42", passing_exit_code: 0, git: "", data: expect.stringContaining("fsmonitor"), stdlib_exit_code: 5, own: "42" });
    } finally {
      await agent.destroy();
    }
  });
});

bwrap.describe("final-state checks and the code they run", () => {
  // The code a check runs has the check's user and pid namespace. It traced the check's shell and
  // swallowed the signal a probe sent, rewrote the check's trap in memory, or ran the probe under a
  // seccomp filter or Landlock domain of its own, and passed a check it failed (examples/ctf/tests.yaml
  // keeps those cheats).
  python.describe("with python3", () => {
    it("cannot trace the check or reach its memory (ptrace, also through the i386 ABI; process_vm_readv/writev; /proc/<pid>/mem for writing; pidfd_getfd; kcmp), nor wall itself off from it (seccomp filters, Landlock), which the agent's own sandbox allows", async () => {
      const agent = await createSandbox({ limits: { commandTimeoutMs: 10_000 } });
      try {
        await agent.writeFile("probe.py", TRACE_PROBE);
        const own = await agent.exec("python3 probe.py");
        expect(own.stderr).toBe("");
        const fields = await runChecks(agent, { probe: { run: "python3 probe.py" } });
        const i386 = process.arch === "x64";
        const { landlock, ...agentResults } = JSON.parse(own.stdout) as Record<string, string>;
        // Landlock where the kernel has it; its absence answers ENOSYS or EOPNOTSUPP, never EPERM.
        expect(landlock).not.toBe("EPERM");
        const all = (denied: string, mem: string) => ({ kcmp: denied, pidfd_getfd: denied, proc_mem_write: mem, process_vm_readv: denied, process_vm_writev: denied, ptrace: denied, ...(i386 ? { ptrace_i386: denied } : {}), seccomp: denied, prctl_seccomp: denied, prctl_name: "ok" });
        expect({ agent: agentResults, check: JSON.parse(String(fields.probe)) }).toEqual({ agent: all("ok", "ok"), check: { ...all("EPERM", "EROFS"), landlock: "EPERM" } });
      } finally {
        await agent.destroy();
      }
    }, 60_000);
  });

  it("fail loudly where the checker cannot be guarded (a bwrap that cannot apply the seccomp filter): an error, never checks run unguarded", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rubricate-fake-bwrap-"));
    const fake = join(dir, "bwrap");
    // The real bwrap, but one that fails as bwrap does on a kernel without seccomp filters.
    writeFileSync(fake, `#!/bin/sh
for a; do [ "$a" = --seccomp ] && { echo "bwrap: prctl(PR_SET_SECCOMP): Invalid argument" >&2; exit 1; }; done
exec ${which("bwrap")} "$@"
`);
    // Run as the sandbox's user too (as root, setpriv starts bwrap as another user id).
    chmodSync(dir, 0o755);
    chmodSync(fake, 0o755);
    process.env.RUBRICATE_BWRAP = fake;
    const agent = await createSandbox({ limits: { commandTimeoutMs: 5000 } });
    try {
      expect((await agent.exec("echo agent")).stdout).toBe("agent\n");
      let error: unknown;
      const fields = await runChecks(agent, { ran: { run: "echo ran" } }).catch((e) => (error = e));
      expect(fields).toBe(error);
      expect(error).toMatchObject({ code: "SANDBOX", message: expect.stringMatching(/^bubblewrap cannot apply the seccomp filter and read-only \/proc that keep a checked program from reaching its check here: bwrap: prctl\(PR_SET_SECCOMP\): Invalid argument$/) });
    } finally {
      await agent.destroy();
      delete process.env.RUBRICATE_BWRAP;
      rmSync(dir, { recursive: true, force: true });
    }
    expect(sandboxTraces().folders).toEqual([]);
  });
});

bwrap.describe("final-state checks the agent makes impossible", () => {
  it("a check a limit ended says nothing: what it printed before the agent's FIFO (or code) held it is not its output", async () => {
    const agent = await createSandbox({ limits: { commandTimeoutMs: 5000 } });
    try {
      expect((await agent.exec("mkfifo answer.txt && printf 'while True: pass\\n' > solve.py")).exitCode).toBe(0);
      const fields = await runChecks(agent, {
        fifo: { run: "echo PASS; cat answer.txt", timeout_ms: 500 },
        spin: { run: "echo PASS; python3 solve.py", timeout_ms: 500 },
        read: { file: "answer.txt" },
      });
      expect(fields).toEqual({ fifo: "", fifo_exit_code: -1, spin: "", spin_exit_code: -1, read: "" });
    } finally {
      await agent.destroy();
    }
  }, 60_000);

  it("a work folder the agent locked (`chmod 000 /work`, `chmod 300 /work`) is still copied: its checks run on its files, not an error that leaves the rollout without a reward", async () => {
    for (const mode of ["000", "300"]) {
      const agent = await createSandbox({ limits: { commandTimeoutMs: 5000 } });
      try {
        expect((await agent.exec(`echo kept > data.txt && chmod ${mode} /work`)).exitCode).toBe(0);
        // Locked: its own user cannot list it (after 000, no command can even start there).
        expect((await agent.exec("ls /work", { cwd: "/" })).exitCode).not.toBe(0);
        const fields = await runChecks(agent, { data: { run: "cat data.txt" }, copy: { file: "data.txt" } });
        expect(fields, mode).toMatchObject({ data: "kept", data_exit_code: 0, copy: "kept" });
      } finally {
        await agent.destroy();
      }
    }
  }, 60_000);

  it("sparse files (20 × `truncate -s 4M` on an 8 MB disk) are copied as sparse, so the checks run instead of the copy failing for want of disk", async () => {
    const limits = { commandTimeoutMs: 20_000, diskBytes: 8 * 1024 * 1024, fileBytes: 4 * 1024 * 1024 };
    const agent = await createSandbox({ limits });
    try {
      expect((await agent.exec("for i in $(seq 1 20); do truncate -s 4M f$i || exit 1; done")).exitCode).toBe(0);
      const fields = await runChecks(agent, { files: { run: "ls | wc -l" } }, { open: (o) => createSandbox({ ...o, limits }) });
      expect(fields).toMatchObject({ files: "20", files_exit_code: 0 });
    } finally {
      await agent.destroy();
    }
  }, 60_000);

  it("a work folder slower to archive than the sandbox's time limit is the agent's forfeit, not a truncated copy that fails to unpack", async () => {
    const { isFinalStateForfeit } = await import("../../src/env/final-state.js");
    // A 1 ms limit on commands the agent does not run itself: the archive cannot finish within it on
    // any machine (50 ms did, with these 4,000 files, when the machine was idle). Its own command gets more.
    const agent = await createSandbox({ limits: { commandTimeoutMs: 1, diskBytes: 16 * 1024 * 1024 } });
    try {
      const made = await agent.exec("for d in $(seq 1 40); do mkdir d$d && (cd d$d && for f in $(seq 1 100); do echo $d$f > f$f; done); done; echo made", { timeoutMs: 60_000 });
      expect(made.stdout.trim()).toBe("made");
      let error: unknown;
      await runChecks(agent, { ok: { run: "echo fine" } }).catch((e) => (error = e));
      expect(String((error as Error).message)).toMatch(/could not be archived within the sandbox's limits \(it took longer than 1 ms\)/);
      expect(isFinalStateForfeit(error)).toBe(true);
    } finally {
      await agent.destroy();
    }
  }, 60_000);

  it("a work folder too large to archive (thousands of empty files with long random names: no disk, megabytes of archive) is the agent's forfeit, scored 0; a checker that cannot start stays an error", async () => {
    const { forfeitResult, isFinalStateForfeit } = await import("../../src/env/final-state.js");
    const { parseRubric } = await import("../../src/rubric/load.js");
    const agent = await createSandbox({ limits: { commandTimeoutMs: 30_000, diskBytes: 1024 * 1024 } });
    try {
      const made = await agent.exec(`python3 -c "
import os, random, string
for i in range(30000): open(''.join(random.choices(string.ascii_letters, k=250)), 'w').close()
print('made')"`);
      expect(made.stdout.trim()).toBe("made");
      let error: unknown;
      await runChecks(agent, { ok: { run: "echo fine" } }).catch((e) => (error = e));
      expect(isFinalStateForfeit(error)).toBe(true);
      expect(String((error as Error).message)).toMatch(/the final-state checks cannot run: the work folder .* is larger than \d+ bytes as an archive/);
      const rubric = parseRubric("id: r\nversion: 1\nscoring: { pass_threshold: 0.5 }\ncriteria:\n  - id: a\n    check: { contains: x }\n", { filename: "r.yaml" });
      expect(forfeitResult(rubric, error as never)).toMatchObject({ reward: 0, passed: false, errors: [] });
    } finally {
      await agent.destroy();
    }
    // The machine's failure (no checker sandbox) is not the agent's: an error, not a forfeit.
    const small = await createSandbox({ limits: { commandTimeoutMs: 5000 } });
    try {
      let error: unknown;
      await runChecks(small, { ok: { run: "true" } }, { open: async () => { throw new (await import("../../src/errors.js")).RubricateError("SANDBOX", "cannot start"); } }).catch((e) => (error = e));
      expect(error).toMatchObject({ code: "SANDBOX" });
      expect(isFinalStateForfeit(error)).toBe(false);
    } finally {
      await small.destroy();
    }
  }, 60_000);
});
