/**
 * The `guardChecker` seccomp filter (src/sandbox/bubblewrap/seccomp.ts): the program run, as the
 * kernel would, for both hosts' ABIs; then applied by bwrap, where what it denies fails and what
 * a sandbox without it allows still works.
 */
import { describe, expect, it } from "vitest";
import { checkerFilter, checkerProgram, SECCOMP_RET_ALLOW, SECCOMP_RET_EPERM, SECCOMP_RET_KILL_PROCESS, type BpfInstruction } from "../../../src/sandbox/bubblewrap/seccomp.js";
import { createSandbox } from "../../../src/sandbox/index.js";
import { needsBubblewrap, needsPython, TRACE_PROBE } from "../helpers.js";
import { sandboxTraces } from "../traces.js";

/** Runs a classic BPF program on `struct seccomp_data { int nr; __u32 arch; __u64 ip; __u64 args[6]; }`: the opcodes seccomp.ts uses, anything else an error. */
function run(program: BpfInstruction[], arch: number, nr: number, arg0 = 0): number {
  const data = new DataView(new ArrayBuffer(64));
  data.setInt32(0, nr, true);
  data.setUint32(4, arch, true);
  data.setBigUint64(16, BigInt(arg0), true);
  let a = 0;
  for (let pc = 0; pc < program.length; pc++) {
    const { code, jt, jf, k } = program[pc];
    if (code === 0x20) a = data.getUint32(k, true);
    else if (code === 0x15) pc += a === k ? jt : jf;
    else if (code === 0x35) pc += a >= k ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`opcode ${code} at ${pc}`);
  }
  throw new Error("ran off the end");
}

/** Per ABI: ptrace, process_vm_readv/writev, kcmp, seccomp, then pidfd_getfd, process_madvise, landlock_* (the same everywhere); prctl; numbers allowed (other ABIs' denied ones among them). */
const LATE = [438, 440, 444, 445, 446];
const ABIS = {
  x64: {
    native: { audit: 0xc000003e, denied: [101, 310, 311, 312, 317, ...LATE], prctl: 157, allowed: [0, 1, 39, 57, 59, 60, 62, 100, 102, 200, 309, 313, 316, 318, 434, 439, 441, 443, 447] },
    compat: { audit: 0x40000003, denied: [26, 347, 348, 349, 354, ...LATE], prctl: 172, allowed: [1, 3, 4, 11, 20, 37, 101, 120, 157, 310, 311, 312, 317, 346, 350, 353, 355, 434] },
  },
  arm64: {
    native: { audit: 0xc00000b7, denied: [117, 270, 271, 272, 277, ...LATE], prctl: 167, allowed: [29, 56, 63, 64, 93, 101, 116, 118, 129, 172, 220, 221, 269, 273, 276, 278, 434] },
    compat: { audit: 0x40000028, denied: [26, 376, 377, 378, 383, ...LATE], prctl: 172, allowed: [1, 3, 4, 11, 20, 37, 101, 117, 167, 270, 271, 277, 375, 379, 382, 384, 434] },
  },
};

describe("the guardChecker seccomp filter", () => {
  for (const [arch, abis] of Object.entries(ABIS)) {
    it(`${arch}: the calls that reach another process or install a filter or Landlock domain fail with EPERM in both ABIs; the rest, the other ABI's numbers for them included, are allowed`, () => {
      const program = checkerProgram(arch);
      for (const abi of [abis.native, abis.compat]) {
        for (const nr of abi.denied) expect(run(program, abi.audit, nr), `${abi.audit.toString(16)} ${nr}`).toBe(SECCOMP_RET_EPERM);
        for (const nr of abi.allowed) expect(run(program, abi.audit, nr), `${abi.audit.toString(16)} ${nr}`).toBe(SECCOMP_RET_ALLOW);
        // prctl: PR_SET_SECCOMP (22) installs a filter; every other option (NO_NEW_PRIVS 38, SET_NAME 15, …) stays.
        expect(run(program, abi.audit, abi.prctl, 22)).toBe(SECCOMP_RET_EPERM);
        for (const option of [0, 1, 15, 21, 23, 38, 39, 0x59616d61]) expect(run(program, abi.audit, abi.prctl, option), `prctl ${option}`).toBe(SECCOMP_RET_ALLOW);
      }
      // Another architecture's calls cannot occur here: the process is killed rather than let through.
      const other = arch === "x64" ? ABIS.arm64.native.audit : ABIS.x64.native.audit;
      expect(run(program, other, 101)).toBe(SECCOMP_RET_KILL_PROCESS);
      expect(run(program, 0, 0)).toBe(SECCOMP_RET_KILL_PROCESS);
    });
  }

  it("x64: x32 calls (bit 30 of the number) are refused whole, ptrace's and getpid's alike", () => {
    const program = checkerProgram("x64");
    for (const nr of [0x40000000 + 39, 0x40000000 + 521, 0x40000000 + 539, 0x40000000 + 101, 0x7fffffff]) expect(run(program, 0xc000003e, nr)).toBe(SECCOMP_RET_EPERM);
    // arm64 has no such range: a number that large is just a number nobody has.
    expect(run(checkerProgram("arm64"), 0xc00000b7, 0x40000000 + 117)).toBe(SECCOMP_RET_ALLOW);
  });

  it("is the program's instructions as bwrap reads them (8 little-endian bytes each), and refuses a host it has no numbers for", () => {
    const program = checkerProgram("x64");
    const bytes = checkerFilter("x64");
    expect(bytes.length).toBe(program.length * 8);
    expect(program.map((_, i) => ({ code: bytes.readUInt16LE(i * 8), jt: bytes[i * 8 + 2], jf: bytes[i * 8 + 3], k: bytes.readUInt32LE(i * 8 + 4) }))).toEqual(program);
    for (const arch of ["ia32", "ppc64", "riscv64", "s390x"]) expect(() => checkerProgram(arch)).toThrow(expect.objectContaining({ code: "SANDBOX", message: expect.stringContaining(`on a ${arch} host`) }));
  });
});

const bwrap = needsBubblewrap();
const python = needsPython();

bwrap.describe("a guardChecker bubblewrap sandbox", () => {
  python.describe("with python3", () => {
    it("denies tracing another process, reaching its memory, or a filter or Landlock domain of one's own, which a sandbox without it allows (the agent's: gdb, strace on its own processes)", async () => {
      const results: Record<string, Record<string, string>> = {};
      for (const guardChecker of [false, true]) {
        const box = await createSandbox({ guardChecker, limits: { commandTimeoutMs: 10_000 } });
        try {
          await box.writeFile("probe.py", TRACE_PROBE);
          const r = await box.exec("python3 probe.py");
          expect(r.stderr).toBe("");
          results[String(guardChecker)] = JSON.parse(r.stdout);
        } finally {
          await box.destroy();
        }
      }
      const i386 = process.arch === "x64";
      // Landlock where the kernel has it ("ok" here); its absence answers ENOSYS or EOPNOTSUPP, never EPERM.
      const { landlock: without, ...unguarded } = results.false;
      expect(without).not.toBe("EPERM");
      const all = (denied: string, mem: string) => ({ kcmp: denied, pidfd_getfd: denied, proc_mem_write: mem, process_vm_readv: denied, process_vm_writev: denied, ptrace: denied, ...(i386 ? { ptrace_i386: denied } : {}), seccomp: denied, prctl_seccomp: denied, prctl_name: "ok" });
      expect({ unguarded, guarded: results.true }).toEqual({ unguarded: all("ok", "ok"), guarded: { ...all("EPERM", "EROFS"), landlock: "EPERM" } });
      expect(sandboxTraces()).toEqual({ folders: [], mounts: [], processes: [], groups: [] });
    }, 60_000);
  });

  it("keeps /proc readable and the pipes and files a process opened writable through /proc/self/fd", async () => {
    const box = await createSandbox({ guardChecker: true });
    try {
      const r = await box.exec("echo kept > f; exec 3>>f; echo more >> /proc/self/fd/3; (echo piped > /proc/self/fd/1) | cat; cat f; test -r /proc/self/status && echo readable; grep -c '^Seccomp_filters:.*1' /proc/self/status");
      expect({ out: r.stdout, err: r.stderr, code: r.exitCode }).toEqual({ out: "piped\nkept\nmore\nreadable\n1\n", err: "", code: 0 });
    } finally {
      await box.destroy();
    }
  });
});
