/**
 * Output files written synchronously with a byte count, so a checkpoint can record exactly how
 * much of a file belongs to finished groups and a resumed run can cut the rest off.
 */
import { closeSync, existsSync, fdatasyncSync, fstatSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { jsonFileValue } from "../config/jsonl.js";
import { RubricateError } from "../errors.js";
import { isRecord } from "../text/json.js";

/** A file written through a buffer; `bytes` counts everything written, flushed or not. */
export class ByteCountingWriter {
  private readonly fd: number;
  private buffer: string[] = [];
  private buffered = 0;
  /** Bytes in the file once the buffer is flushed. */
  bytes = 0;
  private position = 0;

  /** Opens `path`, empty, or cut to `keepBytes` when resuming (the file must be at least that long). */
  constructor(readonly path: string, keepBytes = 0) {
    mkdirSync(dirname(path), { recursive: true });
    if (keepBytes > 0) {
      if (!existsSync(path)) throw new RubricateError("BAD_INPUT", `cannot resume: ${path} is missing`);
      this.fd = openSync(path, "r+");
      if (fstatSync(this.fd).size < keepBytes) {
        closeSync(this.fd);
        throw new RubricateError("BAD_INPUT", `cannot resume: ${path} is shorter than its checkpoint says`);
      }
      ftruncateSync(this.fd, keepBytes);
      this.bytes = this.position = keepBytes;
    } else {
      this.fd = openSync(path, "w");
    }
  }

  /** Appends text (a whole line). */
  write(text: string): void {
    this.buffer.push(text);
    this.buffered += text.length;
    this.bytes += Buffer.byteLength(text);
    if (this.buffered >= 1 << 16) this.flush();
  }

  /** Writes the buffer to the file. */
  flush(): void {
    if (this.buffer.length === 0) return;
    const data = this.buffer.join("");
    this.buffer = [];
    this.buffered = 0;
    const bytes = Buffer.from(data);
    let written = 0;
    while (written < bytes.length) written += writeSync(this.fd, bytes, written, bytes.length - written, this.position + written);
    this.position += written;
  }

  /** Flushes and asks the OS to put the data on disk (before a checkpoint names its length). */
  sync(): void {
    this.flush();
    fdatasyncSync(this.fd);
  }

  private closed = false;

  /** Flushes and closes (again is a no-op). */
  close(): void {
    if (this.closed) return;
    this.flush();
    closeSync(this.fd);
    this.closed = true;
  }
}

/** Where a run stands: how many groups are written and how many output bytes hold them. */
export interface Checkpoint {
  version: 1;
  /** Identifies the input and options; a different fingerprint means start over. */
  fingerprint: string;
  /** A hash of each part of the fingerprint (input, filters, rubric, …), to name what changed when it no longer fits. */
  parts?: Record<string, string>;
  /** 1: filtering (writing the output, or the spill with --top-fraction); 2: the top-fraction pass over the spill. */
  phase: 1 | 2;
  /** Groups closed (rows, without grouping): their units are in the file. */
  groupsDone: number;
  /** Bytes of the phase's file (the output, or the spill) that hold those units. */
  bytes: number;
}

/**
 * Reads a checkpoint, or undefined when there is none or it is another kind of record (the run
 * then starts over). One that is not JSON is a BAD_INPUT error naming file:line:col: starting over
 * would throw away what the interrupted run wrote, which the checkpoint is there to keep.
 */
export function readCheckpoint(path: string): Checkpoint | undefined {
  if (!existsSync(path)) return undefined;
  const value = jsonFileValue(readFileSync(path, "utf8"), path, { hint: "a distill checkpoint: remove it, or pass --no-resume, to start over" }) as Partial<Checkpoint> | null;
  return isRecord(value) && value.version === 1 && typeof value.groupsDone === "number" && typeof value.bytes === "number" ? (value as Checkpoint) : undefined;
}

/** Writes a checkpoint atomically (temporary file, then rename). */
export function writeCheckpoint(path: string, checkpoint: Checkpoint): void {
  writeFileSync(`${path}.tmp`, JSON.stringify(checkpoint));
  renameSync(`${path}.tmp`, path);
}

/** Removes files if present. */
export function removeFiles(...paths: string[]): void {
  for (const p of paths) rmSync(p, { force: true });
}
