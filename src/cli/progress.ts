/** Progress on stderr: a redrawn bar on a terminal, a plain line every few seconds elsewhere (CI logs). */
export class Progress {
  private readonly started = Date.now();
  private lastPrint = 0;
  private readonly tty: boolean;

  constructor(private readonly total: number | undefined, private readonly enabled = true) {
    this.tty = Boolean(process.stderr.isTTY);
  }

  update(done: number, extra = ""): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (now - this.lastPrint < (this.tty ? 100 : 5000) && done !== this.total) return;
    this.lastPrint = now;
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

  finish(): void {
    if (this.enabled && this.tty) process.stderr.write("\n");
  }
}
