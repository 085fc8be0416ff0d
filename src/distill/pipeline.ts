/**
 * The filtering core, synchronous and streaming: rows go in (in input order), units (kept rows,
 * or preference pairs) come out through `emit`. Memory: the open groups (each its best n rows,
 * or all its passing rows when a margin needs the whole group), the dedup indexes (~100 bytes a
 * kept unit with near-dedup, ~12 exact only), one 8-byte hash per group seen, and the tag counts.
 */
import { RubricateError } from "../errors.js";
import { GroupAccumulator, rowDropReason } from "./filters.js";
import { pairFormatProblem } from "./formats.js";
import { Hash64Set, hash64 } from "./hash.js";
import { ExactDupIndex, NearDupIndex } from "./minhash.js";
import { addToSide, emptySide, Funnel, type SideStats } from "./stats.js";
import { isPreferenceFormat, type ChatLine, type DistillRow, type ExportFormat, type FilterOptions, type PreferencePair } from "./types.js";

/** Rewards are sums of points over a total: 0.9 − 0.5 must meet a 0.4 margin despite floating point. */
const EPSILON = 1e-9;

/** What leaves the group stage: a kept row (SFT formats) or a pair (preference formats). */
export type Unit = DistillRow | PreferencePair;

/** True for a preference pair. */
export const isPair = (u: Unit): u is PreferencePair => "chosen" in u;

/** The reward a unit is ranked by (a pair: its chosen side's). */
export const unitReward = (u: Unit): number => (isPair(u) ? u.chosen.reward : u.reward) ?? 0;

const contents = (lines: ChatLine[]) => lines.map((m) => `${m.role}: ${m.content ?? ""}${m.tool_calls ? JSON.stringify(m.tool_calls) : ""}`).join("\n");

/**
 * The text dedup compares: the conversation (user turns and completion; a pair's chosen side) or
 * the completion only. System turns are left out: a long shared system prompt would otherwise
 * make every pair of rows look alike to near-dedup.
 */
export function dedupText(u: Unit, on: FilterOptions["dedupOn"] = "conversation"): string {
  const row = isPair(u) ? u.chosen : u;
  return on === "completion" ? contents(row.completion) : `${contents(row.prompt.filter((m) => m.role !== "system"))}\n${contents(row.completion)}`;
}

/** Options of the core. */
export interface DistillerOptions {
  filters?: FilterOptions;
  format?: ExportFormat;
  /**
   * Groups open at once (default 64): rows of a group may interleave with up to this many other
   * groups (as `rubricate eval` writes rollouts finishing in parallel). Memory: each open group's
   * best n rows (all its passing rows with --margin and no --best-of).
   */
  groupWindow?: number;
}

/** The synchronous filter core; the driver feeds rows and routes units (see `runDistill`). */
export class Distiller {
  readonly funnel = new Funnel();
  readonly before: SideStats = emptySide();
  readonly after: SideStats = emptySide();
  /** Error codes of rows without a reward. */
  readonly errorCodes: Record<string, number> = {};
  /** The first unusable reward seen, for the report's warning. */
  firstRewardProblem?: string;
  /** The first error of a row without a reward, for the report's warning. */
  firstError?: string;
  readonly tagCounts = new Map<string, number>();
  private readonly f: FilterOptions;
  private readonly pairs: boolean;
  private readonly grouping: boolean;
  private readonly cap: number;
  /** Open groups, least recently seen first. */
  private readonly open = new Map<string, GroupAccumulator>();
  /** Every group ever opened: one coming back after it closed is an error, not a second group. */
  private readonly seen = new Hash64Set();
  private readonly window: number;
  /**
   * Groups closed so far (without grouping: rows pushed). Closing order depends only on the
   * group keys' positions in the input, never on scores, so a replay closes them in the same
   * order: the checkpoint records this count, and a resumed run writes only units of later groups.
   */
  closedCount = 0;
  /** The closing ordinal of the group whose units are being emitted now. */
  ordinal = 0;
  /** The group of the previous row (already the most recent: no reordering needed). */
  private lastKey?: string;
  private readonly exact?: ExactDupIndex;
  private readonly near?: NearDupIndex;
  private readonly unitName: "rows" | "pairs";
  private readonly format: ExportFormat;

  /**
   * @param emitGrouped receives each unit leaving the group stage (to the final stage, or to a spill for top-fraction)
   * @param emitKept receives each unit that passed every filter, from `finalStage`
   */
  constructor(options: DistillerOptions, private readonly emitGrouped: (u: Unit) => void, private readonly emitKept: (u: Unit) => void) {
    this.f = options.filters ?? {};
    this.format = options.format ?? "openai";
    this.pairs = isPreferenceFormat(this.format);
    if (this.pairs && this.f.bestOf !== undefined) throw new RubricateError("BAD_INPUT", "--best-of does not apply to preference pairs (each prompt gives one pair: its best against its worst)");
    if (this.f.topFraction !== undefined && !(this.f.topFraction > 0 && this.f.topFraction <= 1)) throw new RubricateError("BAD_INPUT", `--top-fraction must be in (0, 1], not ${this.f.topFraction}`);
    if (this.f.bestOf !== undefined && !(Number.isInteger(this.f.bestOf) && this.f.bestOf > 0)) throw new RubricateError("BAD_INPUT", `--best-of must be a positive integer, not ${this.f.bestOf}`);
    this.grouping = this.pairs || this.f.bestOf !== undefined || this.f.margin !== undefined;
    this.window = options.groupWindow ?? 64;
    if (!(Number.isInteger(this.window) && this.window > 0)) throw new RubricateError("BAD_INPUT", `the group window must be a positive integer, not ${this.window}`);
    this.cap = this.pairs ? 1 : (this.f.bestOf ?? Infinity);
    this.unitName = this.pairs ? "pairs" : "rows";
    const dedup = this.f.dedup ?? "exact";
    if (dedup !== "none") this.exact = new ExactDupIndex();
    if (dedup === "near") this.near = new NearDupIndex({ threshold: this.f.nearThreshold, ngram: this.f.ngram });
    // Declared up front so the report lists stages in pipeline order even when one drops nothing.
    this.funnel.stage("rows", "rows");
    if (this.pairs) this.funnel.stage("pairs", "groups");
    else if (this.grouping) this.funnel.stage("groups", "rows");
    if (this.f.topFraction !== undefined) this.funnel.stage("top-fraction", this.unitName);
    if (dedup !== "none") this.funnel.stage("dedup", this.unitName);
    if (this.f.maxPerTag !== undefined) this.funnel.stage("tag-cap", this.unitName);
  }

  /**
   * Feeds the next input row (null: the line had no usable prompt and response). Up to `window`
   * groups are open at once; a row of a new group beyond that closes the least recently seen one.
   */
  push(row: DistillRow | null, index: number): void {
    if (row === null) {
      this.before.rows++;
      this.funnel.count("rows", "rows", "no-response");
      if (!this.grouping) this.ordinal = this.closedCount++;
      return;
    }
    addToSide(this.before, row.reward, row.verdicts);
    if (row.rewardProblem) this.firstRewardProblem ??= `row ${index + 1}: ${row.rewardProblem}`;
    else if (row.reward === null) {
      for (const code of row.errorCodes ?? ["unknown"]) this.errorCodes[code] = (this.errorCodes[code] ?? 0) + 1;
      if (row.errorMessage) this.firstError ??= `row ${index + 1}: ${row.errorMessage}`;
    }
    const reason = rowDropReason(row, this.f);
    this.funnel.count("rows", "rows", reason);
    if (!this.grouping) {
      // Without grouping each row is its own group, settled at once.
      this.ordinal = this.closedCount++;
      if (reason === null) this.toGrouped(row);
      return;
    }
    let g = this.open.get(row.group);
    if (g) {
      // Map order is the recency order: the first entry is the least recently seen group.
      if (row.group !== this.lastKey) {
        this.open.delete(row.group);
        this.open.set(row.group, g);
      }
    } else {
      const [hi, lo] = hash64(row.group);
      if (!this.seen.add(hi, lo)) {
        throw new RubricateError(
          "BAD_INPUT",
          `input row ${index + 1}: group "${row.group}" came back after it was closed (more than ${this.window} other groups came between its rows); raise the group window (--group-window) or sort the input by the group key`,
        );
      }
      if (this.open.size >= this.window) this.closeGroup(this.open.values().next().value!);
      g = new GroupAccumulator(row.group, this.cap);
      this.open.set(row.group, g);
    }
    this.lastKey = row.group;
    g.add(row, reason, this.f);
  }

  /** Closes every open group (least recently seen first); call once the input ends. */
  end(): void {
    for (const g of [...this.open.values()]) this.closeGroup(g);
  }

  private closeGroup(g: GroupAccumulator): void {
    this.open.delete(g.key);
    this.ordinal = this.closedCount++;
    if (this.pairs) return this.closePairGroup(g);
    const margin = this.f.margin;
    if (margin !== undefined && g.spread < margin - EPSILON) {
      this.funnel.count("groups", "rows", "margin", g.candidates.length + g.overflow);
      return;
    }
    if (g.overflow > 0) this.funnel.count("groups", "rows", "best-of", g.overflow);
    for (const row of g.candidates) {
      this.funnel.count("groups", "rows", null);
      this.toGrouped(row);
    }
  }

  private closePairGroup(g: GroupAccumulator): void {
    const chosen = g.candidates[0];
    const rejected = g.rejected;
    let reason: string | null = null;
    if (!chosen) reason = "no-chosen";
    else if (!rejected || rejected === chosen || !(chosen.reward! - rejected.reward! >= (this.f.margin ?? 0) - EPSILON && chosen.reward! > rejected.reward!)) reason = "margin";
    const pair: PreferencePair | undefined = reason === null ? { group: g.key, prompt: chosen.prompt, chosen, rejected: rejected! } : undefined;
    if (pair) reason = pairFormatProblem(pair, this.format);
    this.funnel.count("pairs", "groups", reason);
    if (reason === null) this.toGrouped(pair!);
  }

  private toGrouped(u: Unit): void {
    this.emitGrouped(u);
  }

  /** Dedup, tag caps and the after-statistics; `topFractionDrop` marks units cut by --top-fraction. */
  finalStage(u: Unit, topFractionDrop = false): void {
    const unit = this.unitName;
    if (this.f.topFraction !== undefined) {
      this.funnel.count("top-fraction", unit, topFractionDrop ? "top-fraction" : null);
      if (topFractionDrop) return;
    }
    if (this.exact || this.near) {
      let reason: string | null = null;
      const text = dedupText(u, this.f.dedupOn);
      if (this.exact!.check(text)) reason = "duplicate";
      else if (this.near?.check(text)) reason = "near-duplicate";
      this.funnel.count("dedup", unit, reason);
      if (reason) return;
    }
    if (this.f.maxPerTag !== undefined) {
      const row = isPair(u) ? u.chosen : u;
      const tags = row.tags.length > 0 ? row.tags : ["(untagged)"];
      const full = tags.some((t) => (this.tagCounts.get(t) ?? 0) >= this.f.maxPerTag!);
      this.funnel.count("tag-cap", unit, full ? "tag-cap" : null);
      if (full) return;
      for (const t of tags) this.tagCounts.set(t, (this.tagCounts.get(t) ?? 0) + 1);
    }
    const row = isPair(u) ? u.chosen : u;
    addToSide(this.after, row.reward, row.verdicts);
    this.emitKept(u);
  }

  /** Bytes held by the dedup indexes and the closed-group set (for the report). */
  get indexBytes(): number {
    return (this.exact?.bytes ?? 0) + (this.near?.bytes ?? 0) + this.seen.bytes;
  }
}

/**
 * The --top-fraction cut from the rewards of every unit that reached it: keep the k = ⌈f·n⌉ best;
 * units tied at the cut value are kept in input order until k is reached.
 */
export function topFractionCut(rewards: Float64Array, fraction: number): (reward: number) => boolean {
  const n = rewards.length;
  const k = Math.min(n, Math.ceil(fraction * n - 1e-9));
  if (k === 0) return () => false;
  const sorted = Float64Array.from(rewards).sort().reverse();
  const cut = sorted[k - 1];
  let above = 0;
  for (const r of rewards) if (r > cut) above++;
  let ties = k - above;
  return (reward) => {
    if (reward > cut) return true;
    if (reward === cut && ties > 0) {
      ties--;
      return true;
    }
    return false;
  };
}
