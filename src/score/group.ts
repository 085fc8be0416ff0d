/**
 * Group rewards for GRPO-style training: k responses to one prompt are scored together. The
 * advantage of a response is its reward relative to its group's; pass@k says how often a group
 * of k would hold at least one success; a length penalty (Kimi k1.5) prefers the shorter of
 * equally good responses.
 *
 * The normalisation is TRL's GRPOTrainer's (`scale_rewards`): advantage = (r − mean) / (std + 1e-4)
 * with the sample standard deviation (Bessel's correction), "group" per prompt, "batch" over all
 * rewards, "none" for r − mean (Dr. GRPO; also what verifiers computes). Rewards that are null
 * (errors) are left out of the statistics and get a null advantage, never a made-up 0.
 */
import { RubricateError } from "../errors.js";
import type { Sample } from "../types.js";

/** How advantages are scaled: by the group's std (default), the whole batch's, or not at all. */
export type AdvantageScale = "group" | "batch" | "none";

export interface LengthPenalty {
  /** Weight of the penalty added to the reward (Kimi k1.5 uses 1 with rewards in [0, 1]). */
  weight: number;
}

/** How GRPO-style groups are scored: grouping field, advantage scaling, pass@k, length penalty. */
export interface GroupOptions {
  scale?: AdvantageScale;
  /** Values of k for pass@k (default [1, group size]). */
  k?: number[];
  /** A response counts as a success for pass@k when it passed, or, when it has no `passed`, when its reward ≥ this (default 1). */
  successThreshold?: number;
  /** Shorter correct responses gain, longer ones lose (applied to the reward before the advantage). */
  lengthPenalty?: LengthPenalty;
}

/** What group scoring needs of one scored response. */
export interface GroupMember {
  /** The prompt (or any key) shared by the responses of one group. */
  group: string;
  reward: number | null;
  passed?: boolean | null;
  /** Length of the response (characters or tokens), for the length penalty. */
  length?: number;
}

export interface MemberResult {
  group: string;
  /** The reward after the length penalty (equal to the reward without one). */
  reward: number | null;
  advantage: number | null;
  /** The length penalty term added to the reward, when one is configured. */
  lengthPenalty?: number;
}

/** One group of responses to the same prompt: its rewards, mean and pass@k. */
export interface GroupSummary {
  group: string;
  size: number;
  /** Responses with a reward. */
  scored: number;
  mean: number | null;
  std: number | null;
  successes: number;
  /** Unbiased pass@k (Chen et al. 2021) for each k ≤ scored; the key is k. */
  passAtK: Record<string, number>;
}

/** Results with their group, advantage and per-group pass@k. */
export interface GroupResults {
  members: MemberResult[];
  groups: GroupSummary[];
  /** pass@k averaged over groups large enough for that k. */
  passAtK: Record<string, number>;
}

/** The constant TRL adds to the standard deviation so a group of equal rewards divides by 1e-4, not 0. */
export const STD_EPSILON = 1e-4;

/**
 * Advantages, pass@k and length penalties for responses in groups, in input order.
 * @example groupRewards([{ group: "q1", reward: 1 }, { group: "q1", reward: 0 }]).members.map((m) => m.advantage) // [0.707…, -0.707…]
 */
export function groupRewards(members: GroupMember[], options: GroupOptions = {}): GroupResults {
  const scale = options.scale ?? "group";
  if (!["group", "batch", "none"].includes(scale)) throw new RubricateError("BAD_INPUT", `scale must be group, batch or none (got ${JSON.stringify(scale)})`);
  const threshold = options.successThreshold ?? 1;
  const byGroup = new Map<string, number[]>();
  members.forEach((m, i) => {
    const list = byGroup.get(m.group);
    if (list) list.push(i);
    else byGroup.set(m.group, [i]);
  });

  const rewards = members.map((m) => (typeof m.reward === "number" && Number.isFinite(m.reward) ? m.reward : null));
  const penalties: (number | undefined)[] = members.map(() => undefined);
  if (options.lengthPenalty) {
    for (const indices of byGroup.values()) applyLengthPenalty(indices, members, rewards, penalties, options.lengthPenalty, threshold);
  }

  const batchStd = scale === "batch" ? sampleStd(rewards.filter((r): r is number => r !== null)) : undefined;
  const advantages: (number | null)[] = members.map(() => null);
  const groups: GroupSummary[] = [];
  for (const [group, indices] of byGroup) {
    const values = indices.map((i) => rewards[i]).filter((r): r is number => r !== null);
    const mean = values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
    const std = sampleStd(values);
    // Equal rewards carry no signal; exactly 0 rather than a rounding residue divided by 1e-4.
    const allEqual = values.every((v) => v === values[0]);
    for (const i of indices) {
      const r = rewards[i];
      if (r === null || mean === null) continue;
      if (allEqual) {
        advantages[i] = 0;
        continue;
      }
      const divisor = scale === "none" ? 1 : (scale === "batch" ? (batchStd ?? 0) : (std ?? 0)) + STD_EPSILON;
      // A group of one has no spread: its std is undefined (NaN in TRL, turned into advantage 0 there).
      advantages[i] = scale !== "none" && (scale === "batch" ? batchStd : std) === null ? 0 : (r - mean) / divisor;
    }
    const successes = indices.filter((i) => isSuccess(members[i], rewards[i], threshold)).length;
    const scored = values.length;
    const ks = options.k ?? [1, indices.length];
    const passAtK: Record<string, number> = {};
    for (const k of new Set(ks)) if (k >= 1 && k <= scored) passAtK[String(k)] = passAtKEstimate(scored, successes, k);
    groups.push({ group, size: indices.length, scored, mean, std, successes, passAtK });
  }

  const overall: Record<string, number> = {};
  const allKs = new Set(groups.flatMap((g) => Object.keys(g.passAtK)));
  for (const k of allKs) {
    const holding = groups.filter((g) => g.passAtK[k] !== undefined);
    overall[k] = holding.reduce((a, g) => a + g.passAtK[k], 0) / holding.length;
  }

  return {
    members: members.map((m, i) => ({ group: m.group, reward: rewards[i], advantage: advantages[i], ...(penalties[i] !== undefined ? { lengthPenalty: penalties[i] } : {}) })),
    groups,
    passAtK: overall,
  };
}

/** A response counts as a success when it passed, or (no `passed`) when its reward reaches the threshold. */
function isSuccess(member: GroupMember, reward: number | null, threshold: number): boolean {
  if (member.passed === true) return true;
  if (member.passed === false) return false;
  return reward !== null && reward >= threshold;
}

/** Sample standard deviation (n − 1), or null for fewer than two values. */
function sampleStd(values: number[]): number | null {
  if (values.length < 2) return null;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (values.length - 1));
}

/**
 * The unbiased pass@k estimator 1 − C(n−c, k)/C(n, k) of Chen et al. (2021), as a running
 * product so large n does not overflow.
 * @example passAtKEstimate(10, 3, 1) // 0.3
 */
export function passAtKEstimate(n: number, c: number, k: number): number {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k) || n < 0 || c < 0 || c > n || k < 1 || k > n) {
    throw new RubricateError("BAD_INPUT", `pass@k needs integers 0 ≤ c ≤ n and 1 ≤ k ≤ n (got n=${n}, c=${c}, k=${k})`);
  }
  if (n - c < k) return 1;
  let allFail = 1;
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i;
  return 1 - allFail;
}

/**
 * Kimi k1.5's length reward within a group: λ = 0.5 − (len − min)/(max − min); a correct
 * response gets λ, an incorrect one min(0, λ) (length never rewards a wrong answer). Equal
 * lengths give no penalty.
 */
function applyLengthPenalty(indices: number[], members: GroupMember[], rewards: (number | null)[], penalties: (number | undefined)[], penalty: LengthPenalty, threshold: number): void {
  const lengths = indices.map((i) => members[i].length);
  if (lengths.some((l) => typeof l !== "number" || !Number.isFinite(l))) {
    throw new RubricateError("BAD_INPUT", `the length penalty needs a length for every response of group "${members[indices[0]].group}"`);
  }
  const min = Math.min(...(lengths as number[]));
  const max = Math.max(...(lengths as number[]));
  for (const i of indices) {
    if (rewards[i] === null) continue;
    const lambda = max === min ? 0 : 0.5 - (members[i].length! - min) / (max - min);
    const term = penalty.weight * (isSuccess(members[i], rewards[i], threshold) ? lambda : Math.min(0, lambda));
    penalties[i] = term;
    rewards[i] = rewards[i]! + term;
  }
}

/** Group scoring as an option of `score()` and the CLI's `--group-by`. */
export interface GroupBy extends GroupOptions {
  /** The sample input the responses to one prompt share (e.g. "prompt", "task_id"), or a function of the sample. */
  by: string | ((sample: Sample) => string);
  /** A sample input holding each response's length (e.g. tokens) for the length penalty; default: characters of the response. */
  lengthField?: string;
  /** The input with the response, for its length (default "response"). */
  responseField?: string;
}

/** Per-result group fields: the group key, the advantage, and the length penalty when one is set. */
export interface GroupFields {
  group: string;
  advantage: number | null;
  lengthPenalty?: number;
}

/** The group key and length of one sample; a sample without the key is a BAD_INPUT error (its group is unknown). */
export function groupMemberOf(sample: Sample, options: GroupBy): { group: string; length?: number } {
  let key: unknown;
  if (typeof options.by === "function") key = options.by(sample);
  else key = sample[options.by];
  if (key === undefined || key === null) throw new RubricateError("BAD_INPUT", `a sample has no "${typeof options.by === "string" ? options.by : "group"}" input to group by`);
  const group = typeof key === "string" ? key : JSON.stringify(key);
  if (!options.lengthPenalty) return { group };
  const raw = options.lengthField ? sample[options.lengthField] : sample[options.responseField ?? "response"];
  const length = typeof raw === "number" ? raw : typeof raw === "string" ? [...raw].length : undefined;
  return { group, length };
}

/** Attaches group fields to results (matched by `index`), and returns the group summaries. */
export function attachGroups<R extends { index: number; reward: number | null; passed?: boolean | null }>(results: R[], members: { group: string; length?: number }[], options: GroupOptions): { results: (R & GroupFields)[]; groups: GroupSummary[]; passAtK: Record<string, number> } {
  const byIndex = [...results].sort((a, b) => a.index - b.index);
  const computed = groupRewards(
    byIndex.map((r) => ({ ...members[r.index], reward: r.reward, passed: r.passed })),
    options,
  );
  const fields = new Map(byIndex.map((r, i) => [r.index, computed.members[i]]));
  return {
    results: results.map((r) => {
      const m = fields.get(r.index)!;
      return { ...r, group: m.group, advantage: m.advantage, ...(m.lengthPenalty !== undefined ? { lengthPenalty: m.lengthPenalty } : {}) };
    }),
    groups: computed.groups,
    passAtK: computed.passAtK,
  };
}

/**
 * Advantages for a reward server's batch, grouped by prompt (OpenRLHF sends `prompts` beside
 * `query`; a GRPO batch holds k responses per prompt). For the bridge to wire in.
 * @example advantagesByPrompt(["p", "p"], [1, 0]) // [0.707…, -0.707…]
 */
export function advantagesByPrompt(prompts: string[], rewards: (number | null)[], options: GroupOptions = {}): (number | null)[] {
  if (prompts.length !== rewards.length) throw new RubricateError("BAD_INPUT", `${prompts.length} prompts for ${rewards.length} rewards`);
  return groupRewards(prompts.map((group, i) => ({ group, reward: rewards[i] })), options).members.map((m) => m.advantage);
}
