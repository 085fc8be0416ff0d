/**
 * Two judges (prompt A vs B, batched vs single, one probability source vs another) on the same
 * human labels: per criterion and per group (pitfall, positive, all), each judge's accuracy and
 * the paired difference B − A with a bootstrap interval over the items both answered.
 */
import { type BootstrapOptions, type Interval, bootstrapMany } from "../stats/bootstrap.js";
import { majority } from "./agreement.js";
import type { HumanLabel, JudgeVerdict, VerdictSet } from "./inputs.js";

/** Whether a yes means a mistake (pitfall: negative points) or something wanted (positive). */
export type CriterionKind = "pitfall" | "positive";

/** One labelled item both judges answered. */
interface PairedItem {
  criterion: string;
  human: boolean;
  a: boolean;
  b: boolean;
  /** P(yes) of each judge, when its verdict carried one. */
  pa?: number;
  pb?: number;
}

/** The comparison over one group of items. */
export interface ComparisonRow {
  /** A criterion id, or `pitfall`, `positive`, `all`. */
  group: string;
  kind?: CriterionKind;
  /** Items with a human majority that both judges answered. */
  n: number;
  accuracyA: Interval;
  accuracyB: Interval;
  /** Accuracy of B minus accuracy of A, paired over the same items. */
  delta: Interval;
  /**
   * Brier score (mean squared error of P(yes) against the label; lower is better) of each judge
   * and B − A, over the items where both verdicts carried a probability; null values without any.
   */
  brierA: Interval;
  brierB: Interval;
  brierDelta: Interval;
  /** Items where both verdicts carried a probability. */
  withProbability: number;
  /** Items only B got right, and items only A got right (the discordant pairs). */
  onlyB: number;
  onlyA: number;
}

/** What `compareJudges` returns. */
export interface JudgeComparison {
  a: string;
  b: string;
  criteria: ComparisonRow[];
  /** `pitfall` and `positive` (when kinds are known) and `all`. */
  groups: ComparisonRow[];
  /** Labelled items left out because a judge gave no verdict (error or skipped), per judge. */
  missing: { a: number; b: number };
  /** Items left out because the annotators were split evenly. */
  ties: number;
}

const verdictKey = (v: Pick<JudgeVerdict, "sampleId" | "criterion">) => `${v.sampleId}\0${v.criterion}`;

function verdictMap(set: VerdictSet): Map<string, { pass: boolean; p?: number } | null> {
  const map = new Map<string, { pass: boolean; p?: number } | null>();
  for (const v of set.verdicts) map.set(verdictKey(v), v.status === "met" || v.status === "unmet" ? { pass: v.status === "met", ...(v.probability !== undefined ? { p: v.probability } : {}) } : null);
  return map;
}

const brier = (pick: (i: PairedItem) => number | undefined) => (s: readonly PairedItem[]) => {
  const xs = s.filter((i) => i.pa !== undefined && i.pb !== undefined);
  return xs.length === 0 ? null : xs.reduce((sum, i) => sum + (pick(i)! - (i.human ? 1 : 0)) ** 2, 0) / xs.length;
};

const accuracy = (pick: (i: PairedItem) => boolean) => (s: readonly PairedItem[]) => (s.length === 0 ? null : s.filter((i) => pick(i) === i.human).length / s.length);

function row(group: string, items: PairedItem[], opts: BootstrapOptions, kind?: CriterionKind): ComparisonRow {
  const accA = accuracy((i) => i.a);
  const accB = accuracy((i) => i.b);
  const brA = brier((i) => i.pa);
  const brB = brier((i) => i.pb);
  const stats = bootstrapMany(
    items,
    {
      a: accA, b: accB, delta: (s) => (s.length === 0 ? null : accB(s)! - accA(s)!),
      brierA: brA, brierB: brB, brierDelta: (s) => { const x = brA(s); const y = brB(s); return x === null || y === null ? null : y - x; },
    },
    opts,
  );
  return {
    group,
    ...(kind ? { kind } : {}),
    n: items.length,
    accuracyA: stats.a,
    accuracyB: stats.b,
    delta: stats.delta,
    brierA: stats.brierA,
    brierB: stats.brierB,
    brierDelta: stats.brierDelta,
    withProbability: items.filter((i) => i.pa !== undefined && i.pb !== undefined).length,
    onlyB: items.filter((i) => i.b === i.human && i.a !== i.human).length,
    onlyA: items.filter((i) => i.a === i.human && i.b !== i.human).length,
  };
}

/**
 * Compares two judges' verdicts against the same labels (several labels per item reduce to
 * their majority; ties are left out). `kinds` marks criteria as pitfalls or positive, e.g. from
 * a rubric's points (`kindsFromRubric`); unmarked criteria count only in `all`.
 * @example compareJudges({ labels, a: readVerdicts("a=old.jsonl"), b: readVerdicts("b=new.jsonl"), kinds }).groups
 */
export function compareJudges(input: {
  labels: readonly HumanLabel[];
  a: VerdictSet;
  b: VerdictSet;
  kinds?: ReadonlyMap<string, CriterionKind>;
} & BootstrapOptions): JudgeComparison {
  const opts: BootstrapOptions = { seed: input.seed ?? 0, resamples: input.resamples ?? 1000, level: input.level };
  const byItem = new Map<string, { sampleId: string; criterion: string; labels: boolean[] }>();
  for (const l of input.labels) {
    const k = verdictKey(l);
    const entry = byItem.get(k) ?? { sampleId: l.sampleId, criterion: l.criterion, labels: [] };
    entry.labels.push(l.label);
    byItem.set(k, entry);
  }
  const a = verdictMap(input.a);
  const b = verdictMap(input.b);
  const items: PairedItem[] = [];
  let ties = 0;
  const missing = { a: 0, b: 0 };
  for (const [k, entry] of [...byItem].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) {
    const human = majority(entry.labels);
    if (human === null) {
      ties++;
      continue;
    }
    const va = a.get(k) ?? null;
    const vb = b.get(k) ?? null;
    if (va === null) missing.a++;
    if (vb === null) missing.b++;
    if (va === null || vb === null) continue;
    items.push({ criterion: entry.criterion, human, a: va.pass, b: vb.pass, ...(va.p !== undefined ? { pa: va.p } : {}), ...(vb.p !== undefined ? { pb: vb.p } : {}) });
  }
  const kinds = input.kinds ?? new Map<string, CriterionKind>();
  const criteria = [...new Set(items.map((i) => i.criterion))].sort().map((c) => row(c, items.filter((i) => i.criterion === c), opts, kinds.get(c)));
  const groups: ComparisonRow[] = [];
  for (const kind of ["pitfall", "positive"] as const) {
    const mine = items.filter((i) => kinds.get(i.criterion) === kind);
    if (mine.length > 0) groups.push(row(kind, mine, opts, kind));
  }
  groups.push(row("all", items, opts));
  return { a: input.a.judge, b: input.b.judge, criteria, groups, missing, ties };
}

/** Pitfall (negative points) or positive, for each criterion of a rubric. */
export function kindsFromRubric(rubric: { criteria: readonly { id: string; points?: number }[] }): Map<string, CriterionKind> {
  return new Map(rubric.criteria.map((c) => [c.id, (c.points ?? 1) < 0 ? "pitfall" : "positive"]));
}

const pct = (v: number | null) => (v === null ? "n/a" : (100 * v).toFixed(1));
const signed = (v: number | null) => (v === null ? "n/a" : `${v >= 0 ? "+" : ""}${(100 * v).toFixed(1)}`);
const ci = (i: Interval) => (i.lo === null || i.hi === null ? "" : ` [${signed(i.lo)}, ${signed(i.hi)}]`);

/** The comparison as a markdown table (accuracies in %, the difference in points with its interval). */
export function comparisonMarkdown(c: JudgeComparison): string {
  const header = `| group | kind | n | A | B | B − A (95% CI) | only B right | only A right | Brier A | Brier B | Brier B − A (95% CI) |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`;
  const b3 = (v: number | null) => (v === null ? "n/a" : v.toFixed(3));
  const line = (r: ComparisonRow) =>
    `| ${r.group} | ${r.kind ?? ""} | ${r.n} | ${pct(r.accuracyA.value)} | ${pct(r.accuracyB.value)} | ${signed(r.delta.value)}${ci(r.delta)} | ${r.onlyB} | ${r.onlyA} | ` +
    `${b3(r.brierA.value)} | ${b3(r.brierB.value)} | ${r.brierDelta.value === null ? "n/a" : `${r.brierDelta.value >= 0 ? "+" : ""}${r.brierDelta.value.toFixed(3)}${r.brierDelta.lo === null ? "" : ` [${r.brierDelta.lo.toFixed(3)}, ${r.brierDelta.hi!.toFixed(3)}]`}`} |`;
  return [
    `## Judge comparison: B = ${c.b} vs A = ${c.a}`,
    "",
    "Accuracy against the human majority on the items both judges answered, and the Brier score of P(yes) where both gave one (lower is better); intervals are paired bootstraps over those items.",
    "",
    header,
    ...c.groups.map(line),
    ...c.criteria.map(line),
    "",
    `Left out: ${c.missing.a} item(s) without a verdict from A, ${c.missing.b} from B, ${c.ties} with split annotators.`,
    "",
  ].join("\n");
}
