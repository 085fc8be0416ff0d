/**
 * A token bucket refilled continuously at `perMinute`. Its capacity is one second's worth (at
 * least 1), so a full minute never admits much more than `perMinute` (a minute-sized burst would
 * let the first minute reach twice the limit). A cost larger than the capacity is admitted once
 * the bucket is full and drives it negative: the debt is repaid by waiting, so the average holds.
 * @example
 * const b = new TokenBucket(600, Date.now); if (b.waitMs(1) === 0) b.take(1);
 */
export class TokenBucket {
  readonly capacity: number;
  private tokens: number;
  private last: number;
  private readonly perMs: number;

  constructor(
    readonly perMinute: number,
    private readonly now: () => number,
  ) {
    this.perMs = perMinute / 60_000;
    this.capacity = Math.max(1, perMinute / 60);
    this.tokens = this.capacity;
    this.last = now();
  }

  private refill(): void {
    const t = this.now();
    if (t > this.last) {
      this.tokens = Math.min(this.capacity, this.tokens + (t - this.last) * this.perMs);
      this.last = t;
    }
  }

  /** Milliseconds until `cost` may be taken (0: now). */
  waitMs(cost: number): number {
    this.refill();
    const need = Math.min(cost, this.capacity);
    if (this.tokens >= need) return 0;
    return Math.ceil((need - this.tokens) / this.perMs);
  }

  /** Takes `cost` tokens (call only when `waitMs(cost) === 0`). */
  take(cost: number): void {
    this.refill();
    this.tokens -= cost;
  }

  /** Gives back (positive) or charges (negative) tokens after the fact, e.g. real usage vs estimate. */
  adjust(delta: number): void {
    this.refill();
    this.tokens = Math.min(this.capacity, this.tokens + delta);
  }

  /** Tokens available now (may be negative while in debt). */
  get available(): number {
    this.refill();
    return this.tokens;
  }
}
