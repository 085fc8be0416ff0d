/**
 * Pairwise judgements (which of two responses is better, or a tie) against human labels, with
 * the judge asked in both orders: agreement, position consistency, accuracy on consistent cases.
 */
import { type BootstrapOptions, type Interval, bootstrapMany } from "../stats/bootstrap.js";

/** A pairwise answer in the original numbering; null when the judge's answer could not be read. */
export type Winner = "1" | "2" | "tie" | null;

/** One comparison: the human answer and the judge's in each order (both mapped to the original numbering). */
export interface PairwiseItem {
  id: string;
  human: "1" | "2" | "tie";
  /** The judge's pick with response 1 shown first. */
  order12: Winner;
  /** The judge's pick with response 2 shown first; absent when asked in one order only. */
  order21?: Winner;
}

/**
 * Reads a winner as written by judges and datasets: 1/"1"/"Output (a)"…, 2, 0/"tie"/"Tie"; anything else is null.
 * @example parseWinner("Tie") // "tie"
 */
export function parseWinner(raw: unknown): Winner {
  if (raw === 1 || raw === "1") return "1";
  if (raw === 2 || raw === "2") return "2";
  if (raw === 0 || raw === "0") return "tie";
  if (typeof raw === "string") {
    const s = raw.trim().toLowerCase();
    if (s === "tie" || s === "draw" || s === "equal") return "tie";
    if (/^(output|response)\s*\(?(1|a)\)?$/.test(s)) return "1";
    if (/^(output|response)\s*\(?(2|b)\)?$/.test(s)) return "2";
  }
  return null;
}

/** Summary of pairwise agreement; rates are null where their denominator is 0. */
export interface PairwiseSummary {
  n: number;
  humanTies: number;
  /** Judge answers that were ties / unreadable, over all orders asked. */
  judgeTies: number;
  unparseable: number;
  /** Whether every item was asked in both orders. */
  bothOrders: boolean;
  /** Agreement with the human label, averaged over the orders asked (unreadable answers count as wrong). */
  agreement: Interval;
  /** Agreement in order 1-2 only. */
  agreementOrder12: Interval;
  /** Agreement in order 2-1 only (null values without both orders). */
  agreementOrder21: Interval;
  /** Share of items where both orders gave the same readable winner. */
  positionConsistency: Interval;
  /** Among consistent items, the share whose winner is the human's. */
  accuracyOnConsistent: Interval;
  /** Items answered the same in both orders. */
  consistent: number;
  /** Three-class (1, 2, tie) precision, recall and F1 in order 1-2, macro-averaged (see `pairwiseClassMetrics`). */
  macro: PairwiseClassMetrics;
}

/** Three-class figures of the judge's pick in order 1-2 against the human's; null where a denominator is 0. */
export interface PairwiseClassMetrics {
  n: number;
  accuracy: number | null;
  /** Macro averages over the classes 1, 2 and tie (sklearn's `average="macro"`). */
  precision: number | null;
  recall: number | null;
  f1: number | null;
}

const CLASSES = ["1", "2", "tie"] as const;

/**
 * Accuracy and macro precision, recall and F1 over the three classes (1, 2, tie) of the judge's
 * pick in order 1-2, the way PandaLM and most pairwise-judge papers report them. An unreadable
 * pick is wrong for every class (it is in no class's predictions); a class that is never
 * predicted has precision 0, as in sklearn.
 * @example pairwiseClassMetrics([{ id: "a", human: "1", order12: "1" }, { id: "b", human: "tie", order12: "2" }]).accuracy // 0.5
 */
export function pairwiseClassMetrics(items: readonly PairwiseItem[]): PairwiseClassMetrics {
  const n = items.length;
  if (n === 0) return { n, accuracy: null, precision: null, recall: null, f1: null };
  const perClass = CLASSES.map((c) => {
    let tp = 0;
    let predicted = 0;
    let actual = 0;
    for (const i of items) {
      if (i.order12 === c) predicted++;
      if (i.human === c) actual++;
      if (i.order12 === c && i.human === c) tp++;
    }
    const p = predicted ? tp / predicted : 0;
    const r = actual ? tp / actual : 0;
    return { p, r, f1: p + r === 0 ? 0 : (2 * p * r) / (p + r), present: actual > 0 || predicted > 0 };
  });
  // sklearn averages over the labels present in either the reference or the predictions.
  const present = perClass.filter((c) => c.present);
  const mean = (f: (c: (typeof perClass)[number]) => number) => present.reduce((s, c) => s + f(c), 0) / present.length;
  return { n, accuracy: items.filter((i) => i.order12 === i.human).length / n, precision: mean((c) => c.p), recall: mean((c) => c.r), f1: mean((c) => c.f1) };
}

type Stat = (s: readonly PairwiseItem[]) => number | null;
const share = (s: readonly PairwiseItem[], ok: (i: PairwiseItem) => boolean, among: (i: PairwiseItem) => boolean = () => true) => {
  let num = 0;
  let den = 0;
  for (const i of s) {
    if (!among(i)) continue;
    den++;
    if (ok(i)) num++;
  }
  return den ? num / den : null;
};
const has21 = (i: PairwiseItem) => i.order21 !== undefined;
const isConsistent = (i: PairwiseItem) => i.order21 !== undefined && i.order12 !== null && i.order12 === i.order21;

/** Agreement averaged over orders: each item scores the share of its asked orders that match the human. */
const agreementStat: Stat = (s) => {
  if (s.length === 0) return null;
  let sum = 0;
  for (const i of s) {
    const hits = (i.order12 === i.human ? 1 : 0) + (has21(i) && i.order21 === i.human ? 1 : 0);
    sum += hits / (has21(i) ? 2 : 1);
  }
  return sum / s.length;
};

/**
 * Agreement, position consistency and accuracy on consistent cases, each with a bootstrap interval.
 * @example pairwiseAgreement([{ id: "a", human: "1", order12: "1", order21: "2" }]).positionConsistency.value // 0
 */
export function pairwiseAgreement(items: readonly PairwiseItem[], opts: BootstrapOptions = {}): PairwiseSummary {
  const stats: Record<string, Stat> = {
    agreement: agreementStat,
    agreementOrder12: (s) => share(s, (i) => i.order12 === i.human),
    agreementOrder21: (s) => share(s, (i) => i.order21 === i.human, has21),
    positionConsistency: (s) => share(s, isConsistent, has21),
    accuracyOnConsistent: (s) => share(s, (i) => i.order12 === i.human, isConsistent),
  };
  const ci = bootstrapMany(items, stats, opts);
  let judgeTies = 0;
  let unparseable = 0;
  for (const i of items) {
    for (const w of has21(i) ? [i.order12, i.order21] : [i.order12]) {
      if (w === "tie") judgeTies++;
      if (w === null) unparseable++;
    }
  }
  return {
    n: items.length,
    humanTies: items.filter((i) => i.human === "tie").length,
    judgeTies,
    unparseable,
    bothOrders: items.length > 0 && items.every(has21),
    agreement: ci.agreement,
    agreementOrder12: ci.agreementOrder12,
    agreementOrder21: ci.agreementOrder21,
    positionConsistency: ci.positionConsistency,
    accuracyOnConsistent: ci.accuracyOnConsistent,
    consistent: items.filter(isConsistent).length,
    macro: pairwiseClassMetrics(items),
  };
}
