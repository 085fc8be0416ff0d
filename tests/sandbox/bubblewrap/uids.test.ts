/** Sandbox user ids (src/sandbox/bubblewrap/uids.ts): never two live sandboxes on one, whatever came and went. */
import { describe, expect, it } from "vitest";
import { UIDS_PER_PID, UidPool } from "../../../src/sandbox/bubblewrap/uids.js";

describe("UidPool", () => {
  // The counter wrapped onto a live sandbox's id after 1,000 others: a fork bomb in one sample's
  // sandbox then used up the process limit of another's (RLIMIT_NPROC counts per user).
  it("never hands out a live id again, however many sandboxes come and go", () => {
    const pool = new UidPool(4242);
    const longLived = pool.take();
    const alsoLive = pool.take();
    for (let i = 0; i < 5 * UIDS_PER_PID; i++) {
      const uid = pool.take();
      expect(uid).not.toBe(longLived);
      expect(uid).not.toBe(alsoLive);
      pool.release(uid);
    }
    pool.release(longLived);
    expect(Array.from({ length: UIDS_PER_PID }, () => pool.take())).toContain(longLived);
  });

  it("gives processes whose pids agree modulo 1,000 ranges of their own, every id below 2^31 (bwrap cannot map more)", () => {
    const a = new UidPool(1234);
    const b = new UidPool(4_195_234);
    const fromA = new Set(Array.from({ length: UIDS_PER_PID }, () => a.take()));
    const fromB = Array.from({ length: UIDS_PER_PID }, () => b.take());
    expect(fromB.some((uid) => fromA.has(uid))).toBe(false);
    for (const pid of [1, 32_768, 1_999_999, 4_194_303]) {
      const uid = new UidPool(pid).take();
      expect(uid).toBeGreaterThanOrEqual(1_000_000);
      expect(uid).toBeLessThan(2 ** 31);
    }
  });
});
