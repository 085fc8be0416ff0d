/**
 * A scripted world where GEPA's design choices matter (issue 23): no real model, but a policy
 * whose pass probability depends on the content of a three-component prompt, and a reflection
 * model that sees only the symptoms in the feedback.
 *
 * - Task clusters. Each task belongs to one cluster and passes with probability 0.85 when its
 *   cluster's fix is in force, 0.10 otherwise (a Bernoulli draw seeded by the candidate's text
 *   and the task: seeded noise, the same on every re-evaluation).
 * - A held-out set unlike the training data, as real tasks are: another cluster mix (fewer
 *   report tasks, more figures and units), a `novel` cluster no training task has and no rule
 *   fixes, and harder tasks (each pass probability scaled by a difficulty in [0.6, 1]).
 * - A greedy trap. `TEMPLATE` (plan) fixes the report cluster (28% of tasks) and blocks the two
 *   figure rules: `CHECK_FIGURES` (plan) and `UNITS` (format), which fix 21% each (42% together,
 *   a 40:60 split). `REPORT_WHEN_ASKED` fixes the report cluster without blocking anything.
 * - Conflicting rules. `BRIEF` fixes short-answer tasks and breaks calculations; `STEPS` does the
 *   reverse; both together fix neither; `BRIEF_BUT_STEPS` fixes both (15% + 15%).
 * - A length cost. Every line of the prompt multiplies each pass probability by 0.97.
 * - Attributable feedback. A failure's feedback names its symptom and the component it belongs
 *   to ("format: a figure is given without its unit"); passes say nothing.
 * - A symptom-only reflector. Rewriting component C, it reads the C symptoms of the minibatch,
 *   picks the commonest and adds the rule that symptom suggests most often — the trap rule 70%
 *   of the time for the report symptom — or, with nothing to go on, a filler line that only
 *   costs length. Now and then it drops a line while rewriting. It never sees the rules'
 *   interactions, only their symptoms.
 * - Feedback the proposal needs. Each component has many plausible rules (`DECOYS`) that fix
 *   nothing and cost a line; only the symptoms in the feedback point at the few that help. The
 *   feedback-blind reflector (`blindReflector`) is the same model without the feedback: it adds
 *   a plausible rule of the component at random.
 */
import { Rng } from "../../src/stats/rng.js";
import type { Candidate, EvalResult, ReflectiveRecord } from "../../src/optimize/types.js";

export const COMPONENTS = ["plan", "format", "style"] as const;
type Component = (typeof COMPONENTS)[number];

export const RULE = {
  TEMPLATE: "Always answer with the full five-part report template.",
  REPORT_WHEN_ASKED: "Use the five-part report template when the question asks for a report.",
  CHECK_FIGURES: "Check every figure against the source table before using it.",
  UNITS: "Give every figure with its unit.",
  BRIEF: "Keep the answer under 100 words.",
  STEPS: "Show the calculation steps.",
  BRIEF_BUT_STEPS: "Keep the answer under 100 words, but show the calculation steps when the question asks for a calculation.",
} as const;
type RuleName = keyof typeof RULE;

const COMPONENT_OF: Record<RuleName, Component> = {
  TEMPLATE: "plan",
  REPORT_WHEN_ASKED: "plan",
  CHECK_FIGURES: "plan",
  UNITS: "format",
  BRIEF: "style",
  STEPS: "style",
  BRIEF_BUT_STEPS: "style",
};

/**
 * Rules a model proposes for a component when it has nothing specific to go on: plausible, fix
 * no cluster, cost a line like any other.
 */
export const DECOYS: Record<Component, readonly string[]> = {
  plan: [
    "Read the question twice before answering.",
    "List the key facts before writing the answer.",
    "Start from what the user already knows.",
    "Decide on the structure of the answer first.",
    "Identify the main claim and support it.",
    "Consider edge cases before concluding.",
    "Answer the most important part first.",
    "Restate the question in your own words.",
  ],
  format: [
    "Use bullet points for lists.",
    "Put the answer in the first sentence.",
    "Use Markdown headings for each part.",
    "Bold the key terms.",
    "Number every step.",
    "End with a one-line summary.",
    "Quote the question before answering.",
    "Use a table when comparing items.",
  ],
  style: [
    "Use a formal tone.",
    "Avoid jargon.",
    "Use the active voice.",
    "Address the user directly.",
    "Avoid hedging words.",
    "Use short sentences.",
    "Prefer concrete examples.",
    "Avoid repeating the question.",
  ],
};

const FILLERS = ["Be careful and precise.", "Double-check the answer before giving it.", "Write clearly.", "Think about what the user needs.", "Stay focused on the question."];

export type Cluster = "report" | "figures" | "units" | "short" | "calculation" | "novel";

/** Share of tasks in each cluster of the training and validation sets. */
export const CLUSTER_SHARE: Partial<Record<Cluster, number>> = { report: 0.28, figures: 0.21, units: 0.21, short: 0.15, calculation: 0.15 };

/** Share of tasks in each cluster of the held-out test set: another mix, and a cluster training never shows. */
export const TEST_SHARE: Partial<Record<Cluster, number>> = { report: 0.14, figures: 0.24, units: 0.24, short: 0.12, calculation: 0.11, novel: 0.15 };

/** How a set of tasks is drawn: cluster shares and the range each task's difficulty is drawn from. */
export interface TaskDistribution {
  shares: Partial<Record<Cluster, number>>;
  /** A task's pass probability is scaled by a difficulty drawn uniformly from [lo, hi]. */
  difficulty: readonly [number, number];
}

export const TRAINING: TaskDistribution = { shares: CLUSTER_SHARE, difficulty: [1, 1] };
export const HELD_OUT: TaskDistribution = { shares: TEST_SHARE, difficulty: [0.6, 1] };

/** Pass probability of a `novel` task: no rule fixes it, so only the length cost moves it. */
export const PASS_NOVEL = 0.5;

const SYMPTOM: Record<Cluster, { component: Component; text: string }> = {
  report: { component: "plan", text: "the answer skips sections the report needs" },
  figures: { component: "plan", text: "a figure does not match the source table" },
  units: { component: "format", text: "a figure is given without its unit" },
  short: { component: "style", text: "the answer is too long" },
  calculation: { component: "style", text: "the calculation steps are not shown" },
  novel: { component: "plan", text: "the answer misses the point" },
};

export interface WorldTask {
  id: string;
  cluster: Cluster;
  question: string;
  /** Scales every pass probability of the task (1 in training; lower on harder held-out tasks). */
  difficulty: number;
}

export const PASS_FIXED = 0.85;
export const PASS_UNFIXED = 0.1;
export const LINE_COST = 0.97;

/** `n` tasks with the clusters in proportion (largest remainder), ids prefixed, difficulties drawn, in a seeded order. */
export function makeWorldTasks(prefix: string, n: number, seed: number, dist: TaskDistribution = TRAINING): WorldTask[] {
  const clusters = Object.keys(dist.shares) as Cluster[];
  const share = (c: Cluster) => dist.shares[c] ?? 0;
  const counts = clusters.map((c) => Math.floor(share(c) * n));
  const order = clusters.map((c, i) => [i, share(c) * n - counts[i]] as const).sort((a, b) => b[1] - a[1]);
  for (let k = 0; counts.reduce((a, b) => a + b, 0) < n; k++) counts[order[k % order.length][0]] += 1;
  const rng = new Rng(seed);
  const [lo, hi] = dist.difficulty;
  const tasks = clusters.flatMap((c, i) => Array.from({ length: counts[i] }, (_, j) => ({ id: `${prefix}-${c}-${j}`, cluster: c, question: `A ${c} question (${prefix} ${j}).`, difficulty: lo + (hi - lo) * rng.next() })));
  return rng.shuffle(tasks);
}

/** The rules a prompt holds (exact lines), and how many lines it has. */
export function rulesOf(candidate: Candidate): { rules: Set<RuleName>; lines: number } {
  const lines = COMPONENTS.flatMap((c) => (candidate[c] ?? "").split("\n").map((l) => l.trim()).filter(Boolean));
  const rules = new Set<RuleName>();
  for (const [name, text] of Object.entries(RULE) as [RuleName, string][]) if (lines.includes(text)) rules.add(name);
  return { rules, lines: lines.length };
}

/** Whether a cluster's fix is in force under these rules. */
export function isFixed(cluster: Cluster, rules: ReadonlySet<RuleName>): boolean {
  const template = rules.has("TEMPLATE");
  switch (cluster) {
    case "report":
      return template || rules.has("REPORT_WHEN_ASKED");
    case "figures":
      return !template && rules.has("CHECK_FIGURES");
    case "units":
      return !template && rules.has("UNITS");
    case "short":
      return rules.has("BRIEF_BUT_STEPS") || (rules.has("BRIEF") && !rules.has("STEPS"));
    case "calculation":
      return rules.has("BRIEF_BUT_STEPS") || (rules.has("STEPS") && !rules.has("BRIEF"));
    case "novel":
      return false;
  }
}

/** The probability that a candidate passes a task. */
export function passProbability(candidate: Candidate, task: Pick<WorldTask, "cluster" | "difficulty">): number {
  const { rules, lines } = rulesOf(candidate);
  const base = task.cluster === "novel" ? PASS_NOVEL : isFixed(task.cluster, rules) ? PASS_FIXED : PASS_UNFIXED;
  return base * task.difficulty * LINE_COST ** lines;
}

/** The expected score of a candidate on each task (no noise): what the benchmark compares arms on, task by task. */
export function expectedScores(candidate: Candidate, tasks: readonly WorldTask[]): number[] {
  return tasks.map((t) => passProbability(candidate, t));
}

/** The expected score of a candidate on some tasks (no noise): what the benchmark reports on the test set. */
export function expectedScore(candidate: Candidate, tasks: readonly WorldTask[]): number {
  return expectedScores(candidate, tasks).reduce((a, b) => a + b, 0) / tasks.length;
}

function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** One seeded pass/fail draw of a candidate on a task, with the feedback a rubric would give. */
export function runTask(candidate: Candidate, task: WorldTask, noiseSeed: number): { score: number; feedback: string; trace: string } {
  const p = passProbability(candidate, task);
  const key = `${noiseSeed}\0${COMPONENTS.map((c) => candidate[c] ?? "").join("\0")}\0${task.id}`;
  const u = new Rng(hash32(key)).next();
  const trace = `answer to ${task.question}`;
  if (u < p) return { score: 1, feedback: "all criteria met", trace };
  const s = SYMPTOM[task.cluster];
  const { rules, lines } = rulesOf(candidate);
  // A fixed task that still failed failed on noise or length: the judge names the symptom anyway.
  const extra = isFixed(task.cluster, rules) && lines > 6 ? " (the answer also wanders)" : "";
  return { score: 0, feedback: `${s.component}: ${s.text}${extra}`, trace };
}

/** The evaluate function of the world, counting the instances it ran. */
export function worldEvaluate(noiseSeed: number, counter = { instances: 0 }) {
  return async (candidate: Candidate, tasks: WorldTask[], opts: { captureTraces: boolean }): Promise<EvalResult> => {
    counter.instances += tasks.length;
    const out = tasks.map((t) => runTask(candidate, t, noiseSeed));
    return { scores: out.map((o) => o.score), feedback: out.map((o) => o.feedback), ...(opts.captureTraces ? { traces: out.map((o) => o.trace) } : {}) };
  };
}

/** What a symptom makes the reflector add: [rule, weight] choices. */
const REMEDIES: Record<string, [RuleName, number][]> = {
  [`plan: ${SYMPTOM.report.text}`]: [["TEMPLATE", 0.7], ["REPORT_WHEN_ASKED", 0.3]],
  [`plan: ${SYMPTOM.figures.text}`]: [["CHECK_FIGURES", 1]],
  [`format: ${SYMPTOM.units.text}`]: [["UNITS", 1]],
  [`style: ${SYMPTOM.short.text}`]: [["BRIEF", 0.75], ["BRIEF_BUT_STEPS", 0.25]],
  [`style: ${SYMPTOM.calculation.text}`]: [["STEPS", 0.75], ["BRIEF_BUT_STEPS", 0.25]],
};

/**
 * The symptom-only reflection model. Its randomness comes from its own seeded PRNG, one draw
 * sequence per run, so a repeated prompt can get a different answer (as a sampled model does).
 */
export function symptomReflector(seed: number) {
  const rng = new Rng(seed ^ 0x5eed);
  let calls = 0;
  const reflect = async (args: { candidate: Candidate; component: string; reflectiveDataset: ReflectiveRecord<unknown>[] }): Promise<string> => {
    calls += 1;
    const current = (args.candidate[args.component] ?? "").split("\n").map((l) => l.trim()).filter(Boolean);
    const counts = new Map<string, number>();
    for (const r of args.reflectiveDataset) {
      const symptom = r.feedback.replace(/ \(the answer also wanders\)$/, "");
      if (symptom.startsWith(`${args.component}: `) && REMEDIES[symptom]) counts.set(symptom, (counts.get(symptom) ?? 0) + 1);
    }
    let lines = [...current];
    // A rewrite sometimes loses a line.
    if (lines.length > 0 && rng.next() < 0.1) lines.splice(rng.int(lines.length), 1);
    if (counts.size === 0) {
      lines.push(rng.choice(FILLERS));
    } else {
      const top = Math.max(...counts.values());
      const symptom = rng.choice([...counts.keys()].filter((k) => counts.get(k) === top).sort());
      // Both style symptoms at once point at the rule that serves both.
      const styleBoth = counts.has(`style: ${SYMPTOM.short.text}`) && counts.has(`style: ${SYMPTOM.calculation.text}`);
      const choices = styleBoth ? ([["BRIEF_BUT_STEPS", 0.6], ["BRIEF", 0.2], ["STEPS", 0.2]] as [RuleName, number][]) : REMEDIES[symptom];
      const rule = rng.weighted(choices.map((c) => c[0]), choices.map((c) => c[1]));
      const text = RULE[rule];
      if (lines.includes(text)) lines.push(rng.choice(FILLERS));
      else lines.push(text);
    }
    lines = [...new Set(lines)];
    return `Here is the new text.\n\`\`\`\n${lines.join("\n")}\n\`\`\``;
  };
  return { reflect, calls: () => calls };
}

/**
 * The same reflection model without the feedback: it never reads the minibatch (inputs, traces,
 * scores or feedback) and adds a plausible rule of the component at random — one of the
 * component's rules or its decoys — dropping a line now and then as the symptom reflector does.
 * The arm that shows whether learning from feedback pays.
 */
export function blindReflector(seed: number) {
  const rng = new Rng(seed ^ 0xb11d);
  const reflect = async (args: { candidate: Candidate; component: string }): Promise<string> => {
    const lines = (args.candidate[args.component] ?? "").split("\n").map((l) => l.trim()).filter(Boolean);
    if (lines.length > 0 && rng.next() < 0.1) lines.splice(rng.int(lines.length), 1);
    const component = args.component as Component;
    const pool = [...(Object.keys(RULE) as RuleName[]).filter((r) => COMPONENT_OF[r] === component).map((r) => RULE[r]), ...(DECOYS[component] ?? [])];
    const fresh = pool.filter((l) => !lines.includes(l));
    lines.push(fresh.length > 0 ? rng.choice(fresh) : rng.choice(FILLERS));
    return `Here is the new text.\n\`\`\`\n${[...new Set(lines)].join("\n")}\n\`\`\`\n`;
  };
  return { reflect };
}

/** The seed candidate: every component empty but for one generic line. */
export const WORLD_SEED: Candidate = { plan: "Answer the question.", format: "Use plain text.", style: "Be helpful." };

/**
 * The best candidate the world allows and its expected score on `tasks`, by brute force over
 * every subset of the rules (each in its own component), no filler lines.
 */
export function knownOptimum(tasks: readonly WorldTask[]): { candidate: Candidate; score: number } {
  const names = Object.keys(RULE) as RuleName[];
  let best = { candidate: {} as Candidate, score: -1 };
  for (let mask = 0; mask < 1 << names.length; mask++) {
    const chosen = names.filter((_, i) => mask & (1 << i));
    const candidate: Candidate = Object.fromEntries(COMPONENTS.map((c) => [c, chosen.filter((r) => COMPONENT_OF[r] === c).map((r) => RULE[r]).join("\n")]));
    const score = expectedScore(candidate, tasks);
    if (score > best.score) best = { candidate, score };
  }
  return best;
}
