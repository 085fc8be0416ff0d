/** Progress on stderr: a redrawn bar on a terminal, a plain line every few seconds elsewhere (CI logs). */
export class Progress {
  private readonly started = Date.now();
  private lastPrint = 0;
  private readonly tty: boolean;
  /** The latest state, and whether it was printed (the throttle can skip the last one). */
  private latest?: { done: number; extra: string };
  private printed = true;

  constructor(private readonly total: number | undefined, private readonly enabled = true) {
    this.tty = Boolean(process.stderr.isTTY);
  }

  update(done: number, extra = ""): void {
    if (!this.enabled) return;
    this.latest = { done, extra };
    this.printed = false;
    const now = Date.now();
    if (now - this.lastPrint < (this.tty ? 100 : 5000) && done !== this.total) return;
    this.print(done, extra, now);
  }

  private print(done: number, extra: string, now: number): void {
    this.lastPrint = now;
    this.printed = true;
    const rate = done / Math.max(0.001, (now - this.started) / 1000);
    const of = this.total ? `/${this.total}` : "";
    const text = `${done}${of} samples  ${rate.toFixed(1)}/s${extra ? `  ${extra}` : ""}`;
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
    if (this.latest && !this.printed) this.print(this.latest.done, this.latest.extra, Date.now());
    if (this.tty) process.stderr.write("\n");
  }
}
