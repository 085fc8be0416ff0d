import type { Rng } from "../stats/rng.js";

/**
 * For each instance, the candidates whose score on it equals the best score any candidate got
 * (ties included). `valScores[candidate][instance]`.
 */
export function instanceFronts(valScores: readonly (readonly number[])[]): number[][] {
  const nInstances = valScores[0]?.length ?? 0;
  const fronts: number[][] = [];
  for (let i = 0; i < nInstances; i++) {
    let best = -Infinity;
    for (const scores of valScores) if (scores[i] > best) best = scores[i];
    const front: number[] = [];
    valScores.forEach((scores, c) => {
      if (scores[i] === best) front.push(c);
    });
    fronts.push(front);
  }
  return fronts;
}

/** True when every front holding `y` also holds one of `others`. */
function isDominated(y: number, others: Set<number>, fronts: readonly (readonly number[])[]): boolean {
  for (const front of fronts) {
    if (!front.includes(y)) continue;
    if (!front.some((p) => others.has(p))) return false;
  }
  return true;
}

/**
 * Removes dominated candidates from the fronts, as the reference does: repeatedly drop the
 * lowest-scoring candidate each of whose fronts still holds another surviving candidate.
 * Every non-empty front keeps at least one member.
 */
export function removeDominated(fronts: readonly (readonly number[])[], aggScores: readonly number[]): number[][] {
  const programs = [...new Set(fronts.flat())].sort((a, b) => aggScores[a] - aggScores[b] || a - b);
  const dominated = new Set<number>();
  let found = true;
  while (found) {
    found = false;
    for (const y of programs) {
      if (dominated.has(y)) continue;
      const others = new Set(programs.filter((p) => p !== y && !dominated.has(p)));
      if (isDominated(y, others, fronts)) {
        dominated.add(y);
        found = true;
        break;
      }
    }
  }
  return fronts.map((front) => front.filter((p) => !dominated.has(p)));
}

/** How many instances each candidate is (co-)best on, after dominated candidates are removed. */
export function frontFrequencies(valScores: readonly (readonly number[])[], aggScores: readonly number[]): Map<number, number> {
  const freq = new Map<number, number>();
  for (const front of removeDominated(instanceFronts(valScores), aggScores)) {
    for (const p of front) freq.set(p, (freq.get(p) ?? 0) + 1);
  }
  return new Map([...freq.entries()].sort((a, b) => a[0] - b[0]));
}

/** Index of the highest value (the first one on ties). */
export function argmax(values: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

/**
 * Picks a parent from the Pareto front with probability proportional to the number of
 * instances it is (co-)best on; falls back to the best mean when the front is empty.
 */
export function selectParent(valScores: readonly (readonly number[])[], aggScores: readonly number[], rng: Rng): number {
  const freq = frontFrequencies(valScores, aggScores);
  if (freq.size === 0) return argmax(aggScores);
  return rng.weighted([...freq.keys()], [...freq.values()]);
}
