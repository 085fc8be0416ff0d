import { removeDominated, instanceFronts } from "./pareto.js";
import type { Rng } from "../stats/rng.js";
import type { Candidate } from "./types.js";

/** The merge proposer's saved state. */
export interface MergeState {
  /** Merges scheduled (one per accepted reflection, up to `maxMergeInvocations`). */
  due: number;
  /** Merges accepted so far. */
  tested: number;
  /** Whether the previous iteration added a candidate (merges are tried only right after one). */
  lastIterFoundNew: boolean;
  /** Triplets `[i, j, ancestor]` already tried. */
  performed: [number, number, number][];
  /** `i,j,source-per-component` keys of merged texts already tried. */
  performedDesc: string[];
}

/** A fresh merge state. */
export function newMergeState(): MergeState {
  return { due: 0, tested: 0, lastIterFoundNew: false, performed: [], performedDesc: [] };
}

/** All ancestors of `node` through the parent lists. */
export function ancestorsOf(parents: readonly (readonly number[])[], node: number): Set<number> {
  const found = new Set<number>();
  const stack = [...parents[node]];
  while (stack.length > 0) {
    const p = stack.pop()!;
    if (found.has(p)) continue;
    found.add(p);
    stack.push(...parents[p]);
  }
  return found;
}

/** True when some component is unchanged from the ancestor in one descendant and changed in the other. */
export function hasDesirableComponents(cands: readonly Candidate[], anc: number, i: number, j: number): boolean {
  return Object.keys(cands[anc]).some((name) => {
    const [a, x, y] = [cands[anc][name], cands[i][name], cands[j][name]];
    return (a === x || a === y) && x !== y;
  });
}

/** Picks two front members and a common ancestor worth merging through, or undefined after 10 tries. */
export function findMergeTriplet(
  rng: Rng,
  cands: readonly Candidate[],
  parents: readonly (readonly number[])[],
  agg: readonly number[],
  pool: readonly number[],
  performed: readonly [number, number, number][],
): [number, number, number] | undefined {
  for (let attempt = 0; attempt < 10; attempt++) {
    if (pool.length < 2) return undefined;
    let [i, j] = rng.sample(pool, 2);
    if (j < i) [i, j] = [j, i];
    const ai = ancestorsOf(parents, i);
    const aj = ancestorsOf(parents, j);
    if (ai.has(j) || aj.has(i)) continue;
    const common = [...ai].filter((a) => aj.has(a)).sort((a, b) => a - b);
    const ok = common.filter(
      (a) =>
        !performed.some(([x, y, z]) => x === i && y === j && z === a) &&
        agg[a] <= agg[i] &&
        agg[a] <= agg[j] &&
        hasDesirableComponents(cands, a, i, j),
    );
    if (ok.length > 0) return [i, j, rng.weighted(ok, ok.map((a) => agg[a]))];
  }
  return undefined;
}

/**
 * Builds the merged candidate component by component, as the reference does: a component one
 * descendant changed and the other kept comes from the one that changed it; one both changed
 * comes from the descendant with the better mean (a seeded coin on ties); otherwise from `i`.
 */
export function mergeComponents(
  rng: Rng,
  cands: readonly Candidate[],
  agg: readonly number[],
  i: number,
  j: number,
  anc: number,
): { candidate: Candidate; sources: number[] } {
  const candidate: Candidate = { ...cands[anc] };
  const sources: number[] = [];
  for (const name of Object.keys(cands[anc])) {
    const [a, x, y] = [cands[anc][name], cands[i][name], cands[j][name]];
    let from: number;
    if ((a === x || a === y) && x !== y) from = a === x ? j : i;
    else if (a !== x && a !== y) from = agg[i] > agg[j] ? i : agg[j] > agg[i] ? j : rng.choice([i, j]);
    else from = i;
    candidate[name] = cands[from][name];
    sources.push(from);
  }
  return { candidate, sources };
}

/** A merge proposal: the merged candidate, its two parents and their common ancestor. */
export interface MergeProposal {
  candidate: Candidate;
  i: number;
  j: number;
  ancestor: number;
}

/** Tries to propose a merge of two non-dominated candidates; records what it tried in `state`. */
export function proposeMerge(
  rng: Rng,
  cands: readonly Candidate[],
  parents: readonly (readonly number[])[],
  valScores: readonly (readonly number[])[],
  agg: readonly number[],
  state: MergeState,
): MergeProposal | undefined {
  const pool = [...new Set(removeDominated(instanceFronts(valScores), agg).flat())].sort((a, b) => a - b);
  if (pool.length < 2 || cands.length < 3) return undefined;
  for (let attempt = 0; attempt < 10; attempt++) {
    const triplet = findMergeTriplet(rng, cands, parents, agg, pool, state.performed);
    if (!triplet) continue;
    const [i, j, ancestor] = triplet;
    const { candidate, sources } = mergeComponents(rng, cands, agg, i, j, ancestor);
    const key = `${i},${j},${sources.join(",")}`;
    if (state.performedDesc.includes(key)) continue;
    state.performedDesc.push(key);
    state.performed.push([i, j, ancestor]);
    return { candidate, i, j, ancestor };
  }
  return undefined;
}

/**
 * The valset instances a merge is first tried on: up to a third each where `i` beats `j`, where
 * `j` beats `i`, and where they tie, topped up at random.
 */
export function mergeSubsample(s1: readonly number[], s2: readonly number[], rng: Rng, n = 5): number[] {
  const all = s1.map((_, k) => k);
  const buckets = [all.filter((k) => s1[k] > s2[k]), all.filter((k) => s2[k] > s1[k]), all.filter((k) => s1[k] === s2[k])];
  const each = Math.max(1, Math.ceil(n / 3));
  const picked: number[] = [];
  for (const bucket of buckets) {
    if (picked.length >= n) break;
    const available = bucket.filter((k) => !picked.includes(k));
    const take = Math.min(available.length, each, n - picked.length);
    if (take > 0) picked.push(...rng.sample(available, take));
  }
  const remaining = n - picked.length;
  if (remaining > 0) {
    const unused = all.filter((k) => !picked.includes(k));
    if (unused.length >= remaining) picked.push(...rng.sample(unused, remaining));
    else for (let r = 0; r < remaining; r++) picked.push(rng.choice(all));
  }
  return picked.slice(0, n);
}
