/**
 * The coordinator's outage guard measures Redis's silence on a monotonic clock: a wall clock set
 * back (NTP, a VM resumed) must not keep a run waiting on a dead Redis for as long as the jump.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { OutageGuard } from "../../src/queue/coordinator.js";

describe("OutageGuard", () => {
  afterEach(() => vi.useRealTimers());

  it("fails after its outage time of silence though the wall clock was set back an hour", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.UTC(2026, 0, 1, 12) });
    const guard = new OutageGuard("redis://127.0.0.1:1/0", 1);
    vi.setSystemTime(Date.UTC(2026, 0, 1, 11)); // an hour back
    const refused = () => Promise.reject(new Error("connect ECONNREFUSED"));
    await expect(guard.call("read a chunk's state", refused)).rejects.toThrow(/has not answered for .* connect ECONNREFUSED/);
  }, 20_000);
});
