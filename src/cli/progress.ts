import { createReadStream } from "node:fs";

/** Options of `Progress`. */
export interface ProgressOptions {
  /** Samples already done before this run (a resumed run): counted in the total, not in the rate. */
  already?: number;
  /** The clock (tests). */
  now?: () => number;
}

/** Progress on stderr: a redrawn bar on a terminal, a plain line every few seconds elsewhere (CI logs). */
export class Progress {
  private readonly now: () => number;
  private readonly started: number;
  private readonly already: number;
  private lastPrint = 0;
  private readonly tty: boolean;
  /** The latest state, and whether it was printed (the throttle can skip the last one). */
  private latest?: { done: number; extra: string | (() => string) };
  private printed = true;

  constructor(private total: number | undefined, private readonly enabled = true, options: ProgressOptions = {}) {
    this.tty = Boolean(process.stderr.isTTY);
    this.now = options.now ?? Date.now;
    this.started = this.now();
    this.already = options.already ?? 0;
  }

  /** Sets the total once it is known (a count that finishes after the run started). */
  setTotal(total: number): void {
    this.total = total;
  }

  /**
   * Records progress; prints when the throttle allows. `extra` may be a function: it is called
   * only when a line is printed (a run calls this once per sample, and prints a few times).
   */
  update(done: number, extra: string | (() => string) = ""): void {
    if (!this.enabled) return;
    this.latest = { done, extra };
    this.printed = false;
    const now = this.now();
    if (now - this.lastPrint < (this.tty ? 100 : 5000) && done !== this.total) return;
    this.print(done, extra, now);
  }

  private print(done: number, extraText: string | (() => string), now: number): void {
    const extra = typeof extraText === "function" ? extraText() : extraText;
    this.lastPrint = now;
    this.printed = true;
    const rate = (done - this.already) / Math.max(0.001, (now - this.started) / 1000);
    const of = this.total ? `/${this.total}` : "";
    const eta = this.total && done < this.total && rate > 0 ? `  ETA ${formatDuration((this.total - done) / rate)}` : "";
    const text = `${done}${of} samples  ${rate.toFixed(1)}/s${eta}${extra ? `  ${extra}` : ""}`;
    if (this.tty) {
      const width = 24;
      const filled = this.total ? Math.round((done / this.total) * width) : 0;
      const bar = this.total ? `[${"#".repeat(filled)}${".".repeat(width - filled)}] ` : "";
      process.stderr.write(`\r${bar}${text}\x1b[K`);
    } else process.stderr.write(`progress: ${text}\n`);
  }

  /** Prints the final count when the throttle skipped it (else the last line could say 1 of 1000), then ends the line. */
  finish(): void {
    if (!this.enabled) return;
    if (this.latest && !this.printed) this.print(this.latest.done, this.latest.extra, this.now());
    if (this.tty) process.stderr.write("\n");
  }
}

/** "45s", "3m05s", "2h07m". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/**
 * The number of lines in a file (a last line without a newline counts), read in the background
 * so a progress bar gets its total without delaying the run; undefined when it cannot be read.
 */
export async function countLines(path: string): Promise<number | undefined> {
  let lines = 0;
  let last = 10;
  try {
    for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      if (chunk.length > 0) last = chunk[chunk.length - 1];
    }
  } catch {
    return undefined;
  }
  return last === 10 ? lines : lines + 1;
}
