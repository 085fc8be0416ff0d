/**
 * Scripted players for the ctf tasks (tests and demos, not LLMs): `solve` works each task the
 * way a careful agent would — look, then act on what it saw — and `guess` submits a made-up flag
 * without looking. Both see only the tool results, as a model would.
 */

/** One step: a tool call of the ctf environment. */
export type CtfAction = { tool: "bash"; command: string } | { tool: "write_file"; path: string; content: string } | { tool: "submit"; answer: string };

const FLAG = /FLAG\{[^}\s]*\}/;
const flagIn = (text: string | undefined) => FLAG.exec(text ?? "")?.[0] ?? "FLAG{not-found}";

/** A greet.sh that prints its argument and never evaluates it. */
export const FIXED_GREET = "#!/bin/sh\n# Greets the person named in $1.\nprintf 'Hello, %s\\n' \"$1\"\n";

/** The next action for task `name`, given the tool results so far (oldest first). */
export function solve(name: string, results: string[]): CtfAction {
  const step = results.length;
  const last = results.at(-1);
  switch (name) {
    case "hidden-file":
      return step === 0 ? { tool: "bash", command: "find /work -type f -name '.*' | xargs cat" } : { tool: "submit", answer: flagIn(last) };
    case "encoded-log":
      return step === 0 ? { tool: "bash", command: "grep -o 'token=[A-Za-z0-9+/=]*' app.log | cut -d= -f2- | base64 -d" } : { tool: "submit", answer: flagIn(last) };
    case "sqlite-table":
      return step === 0
        ? { tool: "bash", command: `python3 -c "import sqlite3; c = sqlite3.connect('shop.db'); print([row for (t,) in c.execute('select name from sqlite_master where type=\\'table\\'').fetchall() for row in c.execute('select * from ' + t)])"` }
        : { tool: "submit", answer: flagIn(last) };
    case "command-injection":
      return step === 0 ? { tool: "write_file", path: "greet.sh", content: FIXED_GREET } : { tool: "submit", answer: "done" };
    case "two-steps": {
      if (step === 0) return { tool: "bash", command: "cat notes.txt" };
      if (step === 1) return { tool: "bash", command: `tar xzOf ${/\/work\/\S+\.tgz/.exec(last ?? "")?.[0] ?? "missing.tgz"} | base64 -d` };
      return { tool: "submit", answer: flagIn(last) };
    }
    default:
      return { tool: "submit", answer: "unknown task" };
  }
}

/** Submits at once without looking: a made-up flag, or "done" for the repair task. */
export function guess(name: string): CtfAction {
  return { tool: "submit", answer: name === "command-injection" ? "done" : "FLAG{probably_this}" };
}
