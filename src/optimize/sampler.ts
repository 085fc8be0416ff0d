import type { Rng } from "../stats/rng.js";

/** The epoch-shuffled minibatch sampler's saved state. */
export interface SamplerState {
  shuffled: number[];
  epoch: number;
  /** How often each training index has been put in an epoch's order (used for padding). */
  freqs: number[];
}

/** A fresh sampler state for a training set of `n` instances. */
export function newSamplerState(n: number): SamplerState {
  return { shuffled: [], epoch: -1, freqs: new Array(n).fill(0) };
}

/**
 * The minibatch of training indices for iteration `iteration` (0-based), as the reference's
 * epoch-shuffled sampler does: each epoch shuffles all indices and pads the order to a multiple
 * of the minibatch size with the least-used indices (lowest index on ties); minibatch `t` is the
 * `t`-th slice of the order. Mutates `state`.
 */
export function nextMinibatch(state: SamplerState, n: number, size: number, iteration: number, rng: Rng): number[] {
  const base = iteration * size;
  const epoch = state.epoch === -1 ? 0 : Math.floor(base / Math.max(state.shuffled.length, 1));
  if (epoch > state.epoch) {
    state.epoch = epoch;
    const order = rng.shuffle(Array.from({ length: n }, (_, i) => i));
    for (const i of order) state.freqs[i] += 1;
    const pad = n % size === 0 ? 0 : size - (n % size);
    for (let k = 0; k < pad; k++) {
      let least = 0;
      for (let i = 1; i < n; i++) if (state.freqs[i] < state.freqs[least]) least = i;
      order.push(least);
      state.freqs[least] += 1;
    }
    state.shuffled = order;
  }
  const start = base % state.shuffled.length;
  return state.shuffled.slice(start, start + size);
}
