/**
 * How a `tests` run is split so the solution cannot forge its own grade.
 *
 * Three parties, two sandboxes (each its own bubblewrap: own pid namespace, own tmpfs /work, no
 * network, the host's environment never passed in):
 *
 * - **The candidate process** (python.ts / node.ts `*_CANDIDATE`) sees: its program, `solution.*`,
 *   read-only /usr, its own /proc (only its own processes), and on stdin one call at a time
 *   (function name and arguments as plain values). It never sees the tests, their names, their
 *   count, the entry point, the samples file or any nonce; its stdout reaches only the referee.
 *   Whatever it patches (builtins, `__main__`, `assert`, `JSON`, `sys.settrace`, atexit, its fds,
 *   signals to its parent: bwrap's init in its own namespace) stays inside its own process.
 * - **The judge process** (`*_JUDGE`) sees: the tests and entry point (on stdin, never in argv,
 *   env or a file), and stubs that stand for the solution's functions. It runs the tests in its
 *   own process; a stub sends the call out and turns the reply back into builtin values (the
 *   codec builds only numbers, strings, lists, tuples, dicts, sets, bytes…), so every `==`,
 *   `assert` and `deepStrictEqual` is the judge's own code on plain values, never the solution's
 *   `__eq__`, getter or `valueOf`. (Python: an object of the solution's own class crosses as a
 *   handle, `Remote`, whose equality is identity on the judge's side; its methods, attributes,
 *   `len`, iteration and indexing are asked of the candidate and answer in plain values.) A name the solution defines never hides a builtin or the
 *   judge's `assert` (only the task's entry point may take a builtin's name).
 * - **The referee** (relay.ts, in rubricate's own process) starts both, passes each call from the
 *   judge to the candidate and the reply back (one line of JSON each way, size-capped), times each
 *   call, restarts the candidate after a timeout or a crash, and reads the verdict only from the
 *   judge's stdout. The candidate has no channel to the judge except its replies.
 *
 * What this does not stop: a solution that recognises the arguments it is called with and returns
 * memorised answers (use hidden tests for that), and the solution learning the arguments of each
 * call (they are its input).
 */
import { NODE_CANDIDATE, NODE_JUDGE } from "./node.js";
import { PYTHON_CANDIDATE, PYTHON_JUDGE } from "./python.js";

/** One process of a run: its command line and the files written beside it. */
export interface ProcessProgram {
  command: string[];
  files: Record<string, string>;
}

/** The judge and candidate programs of a language; the candidate's file holds the solution. */
export function programs(language: "python" | "javascript" | "typescript", solution: string, memoryMb: number): { judge: ProcessProgram; candidate: ProcessProgram } {
  if (language === "python") {
    const python = (file: string) => ["python3", "-I", "-X", "utf8", file];
    return {
      judge: { command: python("judge.py"), files: { "judge.py": PYTHON_JUDGE } },
      candidate: { command: python("candidate.py"), files: { "candidate.py": PYTHON_CANDIDATE, "solution.py": solution } },
    };
  }
  // V8 reserves far more address space than it uses: node gets a heap limit as well.
  const node = (file: string, heapMb: number) => [process.execPath, `--max-old-space-size=${heapMb}`, "--stack-size=4000", file];
  return {
    judge: { command: node("judge.js", 512), files: { "judge.js": NODE_JUDGE } },
    candidate: { command: node("candidate.js", memoryMb), files: { "candidate.js": NODE_CANDIDATE, "solution.js": solution } },
  };
}
