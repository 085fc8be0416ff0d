/**
 * Agreement between several human annotators: pairwise Cohen's kappa, and each annotator against
 * the majority of the others — the ceiling a judge can fairly be held to.
 */

/** A label of any number of classes (yes/no, 1/2/tie, …). */
export type ClassLabel = string | number | boolean;

/** A kappa with the reason it is undefined, when it is. */
export interface Kappa {
  value: number | null;
  reason?: string;
  /** Observed agreement. */
  agreement: number | null;
  n: number;
}

/**
 * Cohen's kappa between two raters over any set of classes (scikit-learn's `cohen_kappa_score`,
 * unweighted); null with a reason when there are no items or the expected agreement is 1.
 * @example cohensKappaLabels(["neg","pos","neg","neu","pos"], ["neg","pos","neg","neu","neg"]).value // 0.6875
 */
export function cohensKappaLabels<T extends ClassLabel>(a: readonly T[], b: readonly T[]): Kappa {
  if (a.length !== b.length) throw new RangeError(`length mismatch: ${a.length} and ${b.length} labels`);
  const n = a.length;
  if (n === 0) return { value: null, reason: "no items", agreement: null, n };
  const ca = new Map<T, number>();
  const cb = new Map<T, number>();
  let same = 0;
  for (let i = 0; i < n; i++) {
    ca.set(a[i], (ca.get(a[i]) ?? 0) + 1);
    cb.set(b[i], (cb.get(b[i]) ?? 0) + 1);
    if (a[i] === b[i]) same++;
  }
  const po = same / n;
  let pe = 0;
  for (const [k, v] of ca) pe += (v / n) * ((cb.get(k) ?? 0) / n);
  if (Math.abs(1 - pe) < 1e-12) {
    return { value: null, reason: "expected agreement is 1: both raters gave one and the same class", agreement: po, n };
  }
  return { value: (po - pe) / (1 - pe), agreement: po, n };
}

/**
 * The most frequent label, or null on a tie for first place (or no labels).
 * @example majority([1, 2, 1]) // 1
 */
export function majority<T extends ClassLabel>(labels: readonly T[]): T | null {
  const counts = new Map<T, number>();
  for (const l of labels) counts.set(l, (counts.get(l) ?? 0) + 1);
  let top: T | null = null;
  let topCount = 0;
  let tied = false;
  for (const [k, v] of counts) {
    if (v > topCount) {
      top = k;
      topCount = v;
      tied = false;
    } else if (v === topCount) tied = true;
  }
  return tied ? null : top;
}

/** One item's labels, keyed by annotator. */
export interface AnnotatedItem<T extends ClassLabel = ClassLabel> {
  id: string;
  labels: Record<string, T>;
}

/** Agreement of two annotators on the items both labelled. */
export interface PairAgreement extends Kappa {
  a: string;
  b: string;
}

/** One annotator against the majority of the other annotators. */
export interface VsMajority extends Kappa {
  annotator: string;
  /** Items skipped because the others tied. */
  ties: number;
}

/** Human agreement: every pair, each annotator against the rest, and the means. */
export interface AnnotatorAgreement {
  annotators: string[];
  items: number;
  pairwise: PairAgreement[];
  vsMajority: VsMajority[];
  /** Mean of the defined pairwise kappas; null when none is defined. */
  meanPairwiseKappa: number | null;
  /** Mean of the defined annotator-vs-others kappas: the ceiling for a judge's kappa. */
  meanVsMajorityKappa: number | null;
}

const mean = (xs: (number | null)[]): number | null => {
  const d = xs.filter((x): x is number => x !== null);
  return d.length ? d.reduce((s, x) => s + x, 0) / d.length : null;
};

/**
 * Pairwise kappas and each annotator against the others' majority (items where the others tie are skipped).
 * @example annotatorAgreement([{ id: "1", labels: { ann1: true, ann2: true, ann3: false } }, ...])
 */
export function annotatorAgreement<T extends ClassLabel>(items: readonly AnnotatedItem<T>[]): AnnotatorAgreement {
  const annotators = [...new Set(items.flatMap((i) => Object.keys(i.labels)))].sort();
  const pairwise: PairAgreement[] = [];
  for (let x = 0; x < annotators.length; x++) {
    for (let y = x + 1; y < annotators.length; y++) {
      const [a, b] = [annotators[x], annotators[y]];
      const both = items.filter((i) => a in i.labels && b in i.labels);
      const k = cohensKappaLabels(both.map((i) => i.labels[a]), both.map((i) => i.labels[b]));
      pairwise.push({ a, b, ...k });
    }
  }
  const vsMajority: VsMajority[] = annotators.map((annotator) => {
    const mine: T[] = [];
    const theirs: T[] = [];
    let ties = 0;
    for (const item of items) {
      if (!(annotator in item.labels)) continue;
      const others = Object.entries(item.labels).filter(([k]) => k !== annotator).map(([, v]) => v);
      if (others.length === 0) continue;
      const m = majority(others);
      if (m === null) {
        ties++;
        continue;
      }
      mine.push(item.labels[annotator]);
      theirs.push(m);
    }
    return { annotator, ties, ...cohensKappaLabels(mine, theirs) };
  });
  return {
    annotators,
    items: items.length,
    pairwise,
    vsMajority,
    meanPairwiseKappa: mean(pairwise.map((p) => p.value)),
    meanVsMajorityKappa: mean(vsMajority.map((v) => v.value)),
  };
}

/**
 * Fleiss' kappa of items each rated by the same number of raters, over the classes that occur
 * (statsmodels' `fleiss_kappa(aggregate_raters(...)[0])`, method "fleiss"); null with a reason
 * when there are no items, fewer than two raters, ragged rows, or the expected agreement is 1.
 * @example fleissKappa([["a", "a"], ["a", "b"], ["b", "b"]]).value // 0.333…
 */
export function fleissKappa<T extends ClassLabel>(items: readonly (readonly T[])[]): Kappa {
  const n = items.length;
  if (n === 0) return { value: null, reason: "no items", agreement: null, n };
  const raters = items[0].length;
  if (raters < 2) return { value: null, reason: "fewer than two raters", agreement: null, n };
  if (items.some((r) => r.length !== raters)) return { value: null, reason: "every item needs the same number of raters", agreement: null, n };
  const totals = new Map<T, number>();
  let agreementSum = 0;
  for (const ratings of items) {
    const counts = new Map<T, number>();
    for (const r of ratings) counts.set(r, (counts.get(r) ?? 0) + 1);
    let pairs = 0;
    for (const [k, c] of counts) {
      pairs += c * (c - 1);
      totals.set(k, (totals.get(k) ?? 0) + c);
    }
    agreementSum += pairs / (raters * (raters - 1));
  }
  const po = agreementSum / n;
  let pe = 0;
  for (const c of totals.values()) pe += (c / (n * raters)) ** 2;
  if (Math.abs(1 - pe) < 1e-12) return { value: null, reason: "expected agreement is 1: every rating is one and the same class", agreement: po, n };
  return { value: (po - pe) / (1 - pe), agreement: po, n };
}
