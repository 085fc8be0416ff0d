/**
 * The seccomp filter of a sandbox whose processes must not reach one another (`guardChecker`: the
 * final-state checks, where the code a check runs has the check's own user and pid namespace).
 * Without it that code could attach to the check's shell with ptrace and swallow the signal a
 * probe sends it, or rewrite the check's memory (process_vm_writev; /proc/<pid>/mem is closed by
 * a read-only /proc, index.ts), and pass a check it fails (examples/ctf/tests.yaml).
 *
 * The filter is classic BPF, as bwrap's `--seccomp FD` reads it (the bytes of a `sock_filter`
 * array, 8 bytes an instruction, in the host's byte order). It is assembled here by hand rather
 * than through libseccomp (a native dependency) because it is short: check the architecture,
 * load the system call number, compare it with a handful of numbers.
 *
 * Each architecture has a second ABI whose calls the filter sees with another `arch` and other
 * numbers: 32-bit x86 (`int 0x80`) on x86-64, 32-bit ARM on arm64. Both are filtered; x32 calls
 * (x86-64's arch with bit 30 of the number set) are refused outright; any other arch kills the
 * process (none can occur on these hosts). A host of any other architecture is refused: the
 * checks fail loudly rather than run unprotected.
 */
import { RubricateError } from "../../errors.js";

/** The system calls that reach another process's execution or memory, by ABI. */
export const DENIED_SYSCALLS = ["ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp", "process_madvise"] as const;
type Denied = (typeof DENIED_SYSCALLS)[number];

/** One ABI: its AUDIT_ARCH value (linux/audit.h) and its numbers of the denied calls (its unistd.h / syscall.tbl). */
interface Abi {
  name: string;
  audit: number;
  numbers: Record<Denied, number>;
  /** x86-64 only: numbers at or above this are x32 calls, refused whole. */
  x32Bit?: number;
}

// pidfd_getfd (438) and process_madvise (440) came after the kernel unified new numbers across architectures.
const X86_64: Abi = { name: "x86_64", audit: 0xc000003e, numbers: { ptrace: 101, process_vm_readv: 310, process_vm_writev: 311, kcmp: 312, pidfd_getfd: 438, process_madvise: 440 }, x32Bit: 0x40000000 };
const I386: Abi = { name: "i386", audit: 0x40000003, numbers: { ptrace: 26, process_vm_readv: 347, process_vm_writev: 348, kcmp: 349, pidfd_getfd: 438, process_madvise: 440 } };
const AARCH64: Abi = { name: "aarch64", audit: 0xc00000b7, numbers: { ptrace: 117, process_vm_readv: 270, process_vm_writev: 271, kcmp: 272, pidfd_getfd: 438, process_madvise: 440 } };
const ARM: Abi = { name: "arm", audit: 0x40000028, numbers: { ptrace: 26, process_vm_readv: 376, process_vm_writev: 377, kcmp: 378, pidfd_getfd: 438, process_madvise: 440 } };

/** Node's `process.arch` → the host's native ABI and the 32-bit one its kernel may also run. */
const HOST_ABIS: Record<string, [native: Abi, compat: Abi]> = { x64: [X86_64, I386], arm64: [AARCH64, ARM] };

// Classic BPF opcodes (linux/bpf_common.h) and seccomp's return values (linux/seccomp.h).
const LD_W_ABS = 0x20; // BPF_LD | BPF_W | BPF_ABS: A = 32-bit word at offset k of seccomp_data
const JEQ_K = 0x15; // BPF_JMP | BPF_JEQ | BPF_K: A == k ? jt : jf (jumps count instructions after this one)
const JGE_K = 0x35; // BPF_JMP | BPF_JGE | BPF_K: A >= k ? jt : jf
const RET_K = 0x06; // BPF_RET | BPF_K: return k
/** Offsets in struct seccomp_data: `int nr` then `__u32 arch`. */
const NR = 0;
const ARCH = 4;
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
const stmt = (code: number, k: number): BpfInstruction => ({ code, jt: 0, jf: 0, k });
const jump = (code: number, k: number, jt: number, jf: number): BpfInstruction => ({ code, jt, jf, k });

/** An ABI's block: load the number; deny each listed call (and x32's whole range); allow the rest. */
function abiBlock(abi: Abi): BpfInstruction[] {
  const numbers = Object.values(abi.numbers);
  const block: BpfInstruction[] = [stmt(LD_W_ABS, NR)];
  // Every test jumps past what follows it to this block's closing "return EPERM".
  const tests = numbers.length + (abi.x32Bit === undefined ? 0 : 1);
  if (abi.x32Bit !== undefined) block.push(jump(JGE_K, abi.x32Bit, tests, 0));
  numbers.forEach((nr, i) => block.push(jump(JEQ_K, nr, numbers.length - i, 0)));
  block.push(stmt(RET_K, SECCOMP_RET_ALLOW), stmt(RET_K, SECCOMP_RET_EPERM));
  return block;
}

/**
 * The filter for a host of `arch` (Node's `process.arch`) as instructions:
 *
 *     A = arch; if A == native goto N; if A == compat goto C; return KILL_PROCESS
 *     N: A = nr; [x86-64: if A >= x32 bit goto deny;] if A == ptrace goto deny; … return ALLOW; deny: return EPERM
 *     C: the same with the 32-bit numbers
 */
export function checkerProgram(arch: string = process.arch): BpfInstruction[] {
  const abis = HOST_ABIS[arch];
  if (!abis) throw new RubricateError("SANDBOX", `cannot keep a final-state check's code from tracing the check on a ${arch} host: the sandbox's seccomp filter knows x64 and arm64 only, and the checks do not run unprotected`);
  const [native, compat] = abis.map(abiBlock);
  // A jump's targets count from the instruction after it: N is 2 past the first test, C past N too.
  return [stmt(LD_W_ABS, ARCH), jump(JEQ_K, abis[0].audit, 2, 0), jump(JEQ_K, abis[1].audit, 1 + native.length, 0), stmt(RET_K, SECCOMP_RET_KILL_PROCESS), ...native, ...compat];
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
