import { RubricateError } from "../../errors.js";
import { Rng } from "../../stats/rng.js";

/** A seeded Fisher–Yates shuffle (a copy; the input is untouched). */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  return new Rng(seed >>> 0).shuffle([...items]);
}

/**
 * Splits items into a trainset and a valset after a seeded shuffle: `valFraction` of them
 * (at least one, and at least one left for training) go to the valset.
 * @example splitTrainVal(tasks, { valFraction: 0.5, seed: 0 })
 */
export function splitTrainVal<T>(items: readonly T[], options: { valFraction?: number; seed?: number } = {}): { trainset: T[]; valset: T[] } {
  if (items.length < 2) throw new RubricateError("BAD_INPUT", `GEPA needs at least 2 instances (one to learn from, one to validate on); got ${items.length}`);
  const fraction = options.valFraction ?? 0.5;
  if (!(fraction > 0 && fraction < 1)) throw new RubricateError("BAD_INPUT", `the validation fraction must be in (0, 1), got ${fraction}`);
  const all = shuffled(items, options.seed ?? 0);
  const nVal = Math.min(all.length - 1, Math.max(1, Math.round(all.length * fraction)));
  return { valset: all.slice(0, nVal), trainset: all.slice(nVal) };
}
