/**
 * User ids for sandboxes run as root: RLIMIT_NPROC counts per user and root ignores it, so each
 * sandbox gets a user id of its own, and two live sandboxes never share one. Before, a counter
 * wrapped onto a live sandbox's id after 1,000 others, and processes whose pids agree modulo 1,000
 * drew from one range: a fork bomb in one sample's sandbox then left another sample's sandbox not
 * one process to start.
 */

/** The first id handed out: far above the machine's own users. */
const UID_BASE = 1_000_000;
/** Ids per process: the most sandboxes one process holds at once. */
export const UIDS_PER_PID = 1000;
/** Processes with ranges of their own: pids below this (pid_max is 32,768, or 4,194,304 where raised), every id below 2^31, which bwrap cannot map ("setting up uid map"). */
const PID_SLOTS = 2_000_000;

/** The ids of one process's live sandboxes. */
export class UidPool {
  private readonly base: number;
  private readonly live = new Set<number>();
  private counter = 0;

  constructor(pid: number = process.pid) {
    this.base = UID_BASE + (pid % PID_SLOTS) * UIDS_PER_PID;
  }

  /** An id no live sandbox of this pool has (when all 1,000 are taken, the next in turn). */
  take(): number {
    for (let tried = 0; tried < UIDS_PER_PID; tried++) {
      this.counter = (this.counter + 1) % UIDS_PER_PID;
      if (!this.live.has(this.base + this.counter)) break;
    }
    const uid = this.base + this.counter;
    this.live.add(uid);
    return uid;
  }

  /** Gives an id back when its sandbox is destroyed. */
  release(uid: number): void {
    this.live.delete(uid);
  }
}
