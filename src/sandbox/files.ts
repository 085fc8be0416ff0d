import { RubricateError } from "../errors.js";
import type { RawExec } from "./process.js";

/** Largest file `readFile` returns unless told otherwise. */
export const MAX_READ_BYTES = 10 * 1024 * 1024;

/**
 * Reads a file with `cat` inside the sandbox: a symlink the sandbox planted then resolves inside
 * the sandbox, never on the host.
 */
export async function readViaExec(raw: RawExec, path: string, maxBytes = MAX_READ_BYTES): Promise<Buffer> {
  const r = await raw(["/bin/cat", "--", path], { outputBytes: maxBytes + 1 });
  if (r.exitCode !== 0) throw new RubricateError("SANDBOX", `cannot read ${path} in the sandbox: ${r.stderr.toString("utf8").trim() || r.limit || `exit ${r.exitCode}`}`);
  if (r.stdout.length > maxBytes) throw new RubricateError("SANDBOX", `${path} is larger than ${maxBytes} bytes`);
  return r.stdout;
}

/** Writes a file inside the sandbox (its folders created), as the sandbox's own user. */
export async function writeViaExec(raw: RawExec, path: string, data: string | Uint8Array, mode?: number): Promise<void> {
  const script = 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"' + (mode === undefined ? "" : ` && chmod ${mode.toString(8)} -- "$1"`);
  const r = await raw(["/bin/sh", "-c", script, "sh", path], { stdin: data });
  if (r.exitCode !== 0) throw new RubricateError("SANDBOX", `cannot write ${path} in the sandbox: ${r.stderr.toString("utf8").trim() || r.limit || `exit ${r.exitCode}`}`);
}
