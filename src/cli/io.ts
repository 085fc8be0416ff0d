import { createReadStream, createWriteStream, mkdirSync, renameSync, type WriteStream } from "node:fs";
import { dirname } from "node:path";
import { createInterface } from "node:readline";
import { RubricateError } from "../errors.js";

/**
 * Reads JSON lines from a file or "-" (stdin), one object at a time; a bad line is an error
 * naming the file and line, not a skipped sample.
 */
export async function* readJsonl(path: string): AsyncGenerator<Record<string, unknown>> {
  const input = path === "-" ? process.stdin : createReadStream(path);
  const lines = createInterface({ input, crlfDelay: Infinity });
  let lineNumber = 0;
  try {
    for await (const line of lines) {
      lineNumber++;
      if (line.trim() === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (e) {
        throw new RubricateError("BAD_INPUT", `invalid JSON: ${(e as Error).message}`, { location: { file: path === "-" ? "<stdin>" : path, line: lineNumber } });
      }
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        throw new RubricateError("BAD_INPUT", "each line must be a JSON object", { location: { file: path === "-" ? "<stdin>" : path, line: lineNumber } });
      }
      yield value as Record<string, unknown>;
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") throw new RubricateError("FILE_NOT_FOUND", `no such file: ${path}`);
    throw e;
  } finally {
    lines.close();
  }
}

/** A JSONL writer to a file (written to a temporary name, renamed on close so a crash leaves no half file) or stdout. */
export class JsonlWriter {
  private readonly stream: WriteStream | NodeJS.WriteStream;
  private readonly tmp?: string;

  constructor(private readonly path: string | undefined, options: { append?: boolean } = {}) {
    if (!path || path === "-") {
      this.stream = process.stdout;
      return;
    }
    mkdirSync(dirname(path), { recursive: true });
    if (options.append) {
      this.stream = createWriteStream(path, { flags: "a" });
    } else {
      this.tmp = `${path}.partial`;
      this.stream = createWriteStream(this.tmp);
    }
  }

  /** Writes one line; resolves when the stream can take more (backpressure). */
  async write(value: unknown): Promise<void> {
    if (!this.stream.write(`${JSON.stringify(value)}\n`)) await new Promise<void>((r) => (this.stream as NodeJS.WritableStream).once("drain", () => r()));
  }

  /** Finishes the file (renaming it into place). */
  async close(): Promise<void> {
    if (this.stream === process.stdout) return;
    await new Promise<void>((resolve, reject) => (this.stream as WriteStream).end((e?: Error | null) => (e ? reject(e) : resolve())));
    if (this.tmp) renameSync(this.tmp, this.path!);
  }
}
