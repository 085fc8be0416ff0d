import { needs, runs, which } from "../helpers/system.js";

/** bwrap's arguments for `/usr/bin/true` in fresh namespaces: what the probes below run. */
const BWRAP_TRUE = ["--unshare-all", "--die-with-parent", "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "/usr/bin/true"];

/** bubblewrap present and able to make namespaces here (skips locally, fails under CI=true). */
export const needsBubblewrap = () => needs("bubblewrap", () => runs("bwrap", BWRAP_TRUE) && which("bwrap"), "apt-get install bubblewrap");

/**
 * bubblewrap able to run for a normal user, with a user namespace of its own: this user when not
 * root; as root, nobody (setpriv), which the tests then run as.
 */
export const needsBubblewrapAsNormalUser = () =>
  needs(
    "bubblewrap run by a normal user",
    () => process.getuid?.() !== 0 || runs("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "--", "bwrap", "--unshare-user", ...BWRAP_TRUE]),
    "setpriv (util-linux) and user namespaces for unprivileged users (sysctl kernel.unprivileged_userns_clone=1 where the kernel has it)",
  );

/** Debian's python3 (stdlib only) inside the sandbox: /usr/bin/python3. */
export const needsPython = () => needs("python3", () => runs("/usr/bin/python3", ["-c", "import sqlite3"]) && "/usr/bin/python3", "apt-get install python3");

/**
 * A Python program that tries every way of reaching its parent (in a check: the check's shell),
 * and of walling itself off from it, that a `guardChecker` sandbox closes, and prints a JSON
 * object: each attempt's "ok" or errno name.
 * Each attempt succeeds in a sandbox without it (they are real attempts, not calls bound to fail).
 * On x86-64 it also makes a 32-bit call (`int $0x80`, the i386 ABI a 64-bit process may use) to
 * trace a child of its own, which a filter that looked at x86-64 numbers alone would let through.
 */
export const TRACE_PROBE = String.raw`
import ctypes, errno, json, mmap, os, platform, subprocess
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
libc.syscall.restype = ctypes.c_long
PTRACE_SEIZE = 0x4206
parent, out = os.getppid(), {}
def result(r):
    return "ok" if r >= 0 else errno.errorcode[ctypes.get_errno()]
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
# 8 bytes of a writable mapping of the parent, read and written back unchanged.
start = next(int(l.split("-")[0], 16) for l in open("/proc/%d/maps" % parent) if l.split()[1].startswith("rw"))
buf = ctypes.create_string_buffer(8)
local, remote = iovec(ctypes.addressof(buf), 8), iovec(start, 8)
out["process_vm_readv"] = result(libc.process_vm_readv(parent, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0))
out["process_vm_writev"] = result(libc.process_vm_writev(parent, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0))
try:
    os.close(os.open("/proc/%d/mem" % parent, os.O_WRONLY))
    out["proc_mem_write"] = "ok"
except OSError as e:
    out["proc_mem_write"] = errno.errorcode[e.errno]
pidfd = libc.syscall(434, parent, 0)  # pidfd_open: allowed; what it leads to is not
out["pidfd_getfd"] = result(libc.syscall(438, pidfd, 0, 0))
out["kcmp"] = result(libc.syscall(312 if platform.machine() == "x86_64" else 272, os.getpid(), parent, 0, 0, 0))
out["ptrace"] = result(libc.ptrace(PTRACE_SEIZE, parent, None, None))
if platform.machine() == "x86_64":
    # (nr, a, b) → eax = nr, ebx = a, ecx = b, edx = esi = 0; int 0x80. push rbx; mov eax, edi;
    # mov ebx, esi; mov ecx, edx; xor edx, edx; xor esi, esi; int 0x80; pop rbx; ret
    code = bytes([0x53, 0x89, 0xF8, 0x89, 0xF3, 0x89, 0xD1, 0x31, 0xD2, 0x31, 0xF6, 0xCD, 0x80, 0x5B, 0xC3])
    page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(code)
    i386 = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(page)))
    child = subprocess.Popen(["sleep", "30"])
    r = i386(26, PTRACE_SEIZE, child.pid)  # the i386 ptrace: it returns -errno itself
    out["ptrace_i386"] = "ok" if r >= 0 else errno.errorcode[-r]
    child.kill()
# A filter or Landlock domain of its own (here one that allows everything), under which a probe's
# kill would send nothing: installed, or refused.
allow = ctypes.create_string_buffer(bytes([0x06, 0, 0, 0, 0, 0, 0xFF, 0x7F]), 8)  # return SECCOMP_RET_ALLOW
class fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
prog = fprog(1, ctypes.addressof(allow))
libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
out["seccomp"] = result(libc.syscall(317 if platform.machine() == "x86_64" else 277, 1, 0, ctypes.byref(prog)))  # SECCOMP_SET_MODE_FILTER
out["prctl_seccomp"] = result(libc.prctl(22, 2, ctypes.byref(prog), 0, 0))  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
out["prctl_name"] = result(libc.prctl(15, b"probe", 0, 0, 0))  # PR_SET_NAME: prctl's other options stay
out["landlock"] = result(libc.syscall(444, None, 0, 1))  # its ABI version: ENOSYS or EOPNOTSUPP where the kernel has none
print(json.dumps(out, sort_keys=True))
`;
