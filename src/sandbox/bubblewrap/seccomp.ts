/**
 * The seccomp filter of a checker's sandbox (`guardChecker`: the final-state checks, where the
 * code a check runs has the check's own user and pid namespace). Without it that code could
 *
 * - reach the check: attach to the check's shell with ptrace and swallow the signal a probe sends
 *   it, or rewrite the check's memory (process_vm_writev; /proc/<pid>/mem is closed by a read-only
 *   /proc, index.ts);
 * - or wall itself off from the check: run what it is given under a seccomp filter or in a
 *   Landlock domain of its own (inherited by all it starts, a fresh `env -i sh` included), where a
 *   probe's `kill` sends nothing;
 *
 * and pass a check it fails (examples/ctf/tests.yaml keeps each cheat). So those calls fail with
 * EPERM: ptrace, process_vm_readv/writev, pidfd_getfd, kcmp, process_madvise; seccomp,
 * prctl(PR_SET_SECCOMP), landlock_create_ruleset/add_rule/restrict_self.
 *
 * The filter is classic BPF, as bwrap's `--seccomp FD` reads it (the bytes of a `sock_filter`
 * array, 8 bytes an instruction, in the host's byte order). It is assembled here by hand rather
 * than through libseccomp (a native dependency) because it is short: check the architecture,
 * load the system call number, compare it with a dozen numbers (prctl's first argument too).
 *
 * Each architecture has a second ABI whose calls the filter sees with another `arch` and other
 * numbers: 32-bit x86 (`int 0x80`) on x86-64, 32-bit ARM on arm64. Both are filtered; x32 calls
 * (x86-64's arch with bit 30 of the number set) are refused outright; any other arch kills the
 * process (none can occur on these hosts). A host of any other architecture is refused: the
 * checks fail loudly rather than run unguarded.
 */
import { RubricateError } from "../../errors.js";

/** The system calls denied outright: those that reach another process, and those that install a filter or domain of one's own. */
export const DENIED_SYSCALLS = ["ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp", "process_madvise", "seccomp", "landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self"] as const;
type Denied = (typeof DENIED_SYSCALLS)[number];
/** prctl's option that installs a seccomp filter (linux/prctl.h); prctl's other options stay allowed. */
const PR_SET_SECCOMP = 22;

/** One ABI: its AUDIT_ARCH value (linux/audit.h) and its numbers (its unistd.h / syscall.tbl). */
interface Abi {
  name: string;
  audit: number;
  denied: Record<Denied, number>;
  prctl: number;
  /** x86-64 only: numbers at or above this are x32 calls, refused whole. */
  x32Bit?: number;
}

// Numbers from 403 on (pidfd_getfd 438, process_madvise 440, landlock 444-446) are the same on every architecture.
const LATE = { pidfd_getfd: 438, process_madvise: 440, landlock_create_ruleset: 444, landlock_add_rule: 445, landlock_restrict_self: 446 };
const X86_64: Abi = { name: "x86_64", audit: 0xc000003e, denied: { ptrace: 101, process_vm_readv: 310, process_vm_writev: 311, kcmp: 312, seccomp: 317, ...LATE }, prctl: 157, x32Bit: 0x40000000 };
const I386: Abi = { name: "i386", audit: 0x40000003, denied: { ptrace: 26, process_vm_readv: 347, process_vm_writev: 348, kcmp: 349, seccomp: 354, ...LATE }, prctl: 172 };
const AARCH64: Abi = { name: "aarch64", audit: 0xc00000b7, denied: { ptrace: 117, process_vm_readv: 270, process_vm_writev: 271, kcmp: 272, seccomp: 277, ...LATE }, prctl: 167 };
const ARM: Abi = { name: "arm", audit: 0x40000028, denied: { ptrace: 26, process_vm_readv: 376, process_vm_writev: 377, kcmp: 378, seccomp: 383, ...LATE }, prctl: 172 };

/** Node's `process.arch` → the host's native ABI and the 32-bit one its kernel may also run. */
const HOST_ABIS: Record<string, [native: Abi, compat: Abi]> = { x64: [X86_64, I386], arm64: [AARCH64, ARM] };

// Classic BPF opcodes (linux/bpf_common.h) and seccomp's return values (linux/seccomp.h).
const LD_W_ABS = 0x20; // BPF_LD | BPF_W | BPF_ABS: A = the 32-bit word at offset k of seccomp_data
const JEQ_K = 0x15; // BPF_JMP | BPF_JEQ | BPF_K: A == k ? jt : jf (each counts instructions after this one)
const JGE_K = 0x35; // BPF_JMP | BPF_JGE | BPF_K: A >= k ? jt : jf
const RET_K = 0x06; // BPF_RET | BPF_K: return k
/** Offsets in `struct seccomp_data { int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6]; }`: args[0]'s low half (little-endian hosts). */
const NR = 0;
const ARCH = 4;
const ARG0 = 16;
export const SECCOMP_RET_KILL_PROCESS = 0x80000000;
export const SECCOMP_RET_ALLOW = 0x7fff0000;
/** SECCOMP_RET_ERRNO | EPERM: the call fails as one the caller may not make. */
export const SECCOMP_RET_EPERM = 0x00050000 | 1;

/** One instruction: `struct sock_filter { __u16 code; __u8 jt; __u8 jf; __u32 k; }`. */
export interface BpfInstruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

/** An instruction before assembly: jumps name their targets (forward only, as BPF requires); `at` names this one. */
interface Line {
  at?: string;
  code: number;
  k: number;
  jt?: string;
  jf?: string;
}
const load = (k: number, at?: string): Line => ({ at, code: LD_W_ABS, k });
/** If A == k go to `then`, else on to the next instruction. */
const ifEq = (k: number, then: string): Line => ({ code: JEQ_K, k, jt: then });
const ifGe = (k: number, then: string): Line => ({ code: JGE_K, k, jt: then });
const ret = (k: number, at?: string): Line => ({ at, code: RET_K, k });

/** Labels resolved to offsets: a jump counts the instructions between it and its target. */
function assemble(lines: Line[]): BpfInstruction[] {
  const where = new Map(lines.flatMap((l, i) => (l.at ? [[l.at, i] as const] : [])));
  const offset = (from: number, label: string | undefined) => {
    if (label === undefined) return 0;
    const to = where.get(label);
    // A jump is a byte and goes forward: a program that breaks either is this file's bug.
    if (to === undefined || to <= from || to - from - 1 > 255) throw new Error(`seccomp program: no forward jump from ${from} to ${label}`);
    return to - from - 1;
  };
  return lines.map((l, i) => ({ code: l.code, jt: offset(i, l.jt), jf: offset(i, l.jf), k: l.k }));
}

/** An ABI's part: its denied numbers (and x32's whole range) and prctl(PR_SET_SECCOMP) fail with EPERM; the rest is allowed. */
function abiLines(abi: Abi): Line[] {
  const deny = `${abi.name}: deny`;
  const prctl = `${abi.name}: prctl`;
  return [
    load(NR, abi.name),
    ...(abi.x32Bit === undefined ? [] : [ifGe(abi.x32Bit, deny)]),
    ...Object.values(abi.denied).map((nr) => ifEq(nr, deny)),
    ifEq(abi.prctl, prctl),
    ret(SECCOMP_RET_ALLOW),
    load(ARG0, prctl),
    ifEq(PR_SET_SECCOMP, deny),
    ret(SECCOMP_RET_ALLOW),
    ret(SECCOMP_RET_EPERM, deny),
  ];
}

/**
 * The filter for a host of `arch` (Node's `process.arch`) as instructions:
 *
 *     A = arch; if A == native goto N; if A == compat goto C; return KILL_PROCESS
 *     N: A = nr; [x86-64: if A >= x32 bit goto deny;] if A == ptrace goto deny; …
 *        if A == prctl goto P; return ALLOW; P: A = args[0]; if A == PR_SET_SECCOMP goto deny; return ALLOW; deny: return EPERM
 *     C: the same with the 32-bit numbers
 */
export function checkerProgram(arch: string = process.arch): BpfInstruction[] {
  const abis = HOST_ABIS[arch];
  if (!abis) throw new RubricateError("SANDBOX", `cannot keep a final-state check's code from reaching the check on a ${arch} host: the sandbox's seccomp filter knows x64 and arm64 only, and the checks do not run unguarded`);
  const [native, compat] = abis;
  return assemble([load(ARCH), ifEq(native.audit, native.name), ifEq(compat.audit, compat.name), ret(SECCOMP_RET_KILL_PROCESS), ...abiLines(native), ...abiLines(compat)]);
}

/** The filter as bwrap's `--seccomp` reads it (both supported hosts are little-endian). */
export function checkerFilter(arch: string = process.arch): Buffer {
  const program = checkerProgram(arch);
  const out = Buffer.alloc(program.length * 8);
  program.forEach((ins, i) => {
    out.writeUInt16LE(ins.code, i * 8);
    out.writeUInt8(ins.jt, i * 8 + 2);
    out.writeUInt8(ins.jf, i * 8 + 3);
    out.writeUInt32LE(ins.k, i * 8 + 4);
  });
  return out;
}
