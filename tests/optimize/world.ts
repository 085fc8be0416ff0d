/** A scripted world for GEPA tests: a policy whose score depends on rules in its system prompt. */
import type { Candidate, EvalResult, ReflectiveRecord } from "../../src/optimize/types.js";

export const RULES = [
  "Always state the units of every number you give.",
  "Name the source of each fact you state.",
  "Ask one clarifying question when the request is ambiguous.",
  "Warn the reader about risks before giving instructions.",
  "Finish with a one-sentence summary of the answer.",
  "Use the metric system unless the user asks otherwise.",
];
export const HARMFUL = "Answer in one word.";

export interface Task {
  id: number;
  question: string;
  needs: number;
  long: boolean;
}

export function makeTasks(from: number, count: number): Task[] {
  return Array.from({ length: count }, (_, n) => {
    const id = from + n;
    return { id, question: `Task ${id}: help the user with request number ${id}.`, needs: id % RULES.length, long: id % 4 < 2 };
  });
}

/** The scripted policy and judge: pass iff the needed rule is present and no harmful line cuts a long answer. */
export function scoreTask(candidate: Candidate, task: Task): { score: number; feedback: string; trace: string } {
  const text = Object.values(candidate).join("\n");
  const trace = `response to task ${task.id}`;
  if (task.long && text.includes(HARMFUL)) return { score: 0, feedback: "failed: the answer was cut to one word", trace };
  if (!text.includes(RULES[task.needs])) return { score: 0, feedback: `failed: does the response follow "${RULES[task.needs]}"? no`, trace };
  return { score: 1, feedback: "all criteria met", trace };
}

/** An evaluate function over the scripted world that counts the instances it was asked to run. */
export function makeEvaluate(counter = { instances: 0 }) {
  return {
    counter,
    evaluate: async (candidate: Candidate, tasks: Task[], opts: { captureTraces: boolean }): Promise<EvalResult> => {
      counter.instances += tasks.length;
      const out = tasks.map((t) => scoreTask(candidate, t));
      return { scores: out.map((o) => o.score), feedback: out.map((o) => o.feedback), traces: opts.captureTraces ? out.map((o) => o.trace) : undefined };
    },
  };
}

export function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/**
 * A deterministic reflection model: fixes the first failure it reads, and now and then adds a
 * harmful line. With `capacity`, a component keeps at most that many rules (the oldest goes).
 */
export const scriptedReflect = (args: ReflectArgs) => reflectWith(args);

interface ReflectArgs {
  candidate: Candidate; component: string; reflectiveDataset: ReflectiveRecord<Task>[];
}

export async function reflectWith({ candidate, component, reflectiveDataset }: ReflectArgs, capacity = Infinity): Promise<string> {
  let text = candidate[component];
  const feedback = reflectiveDataset.map((r) => r.feedback);
  const failure = feedback.find((f) => f.startsWith("failed"));
  if (fnv(text + feedback.join("|")) % 4 === 0 && !text.includes(HARMFUL)) text = `${text}\n${HARMFUL}`;
  else if (failure?.includes("one word")) text = text.split("\n").filter((l) => l !== HARMFUL).join("\n");
  else if (failure) {
    const rule = /"([^"]+)"/.exec(failure)?.[1];
    if (rule && !text.includes(rule)) text = `${text}\n${rule}`;
    const lines = text.split("\n");
    const ruleLines = lines.filter((l) => RULES.includes(l));
    if (ruleLines.length > capacity) text = lines.filter((l) => l !== ruleLines[0]).join("\n");
  }
  return `Looking at the feedback, the instructions need a change.\n\`\`\`\n${text}\n\`\`\``;
}

export const SEED: Candidate = { system: `You are a helpful assistant.\n${RULES[0]}` };

/**
 * A world where branches trade off, so merges matter: type "A" instances need `fixA` in
 * component a, type "B" need `fixB` in b, and type "C" pass only while a is still the seed's.
 */
export interface MergeTask {
  id: number;
  type: "A" | "B" | "C";
}
export const MERGE_SEED: Candidate = { a: "Answer plainly.", b: "Be kind." };
export const mergeTasks: MergeTask[] = [
  { id: 0, type: "A" },
  { id: 1, type: "A" },
  { id: 2, type: "B" },
  { id: 3, type: "B" },
  { id: 4, type: "C" },
];
export async function mergeEvaluate(candidate: Candidate, tasks: MergeTask[]): Promise<EvalResult> {
  const pass = (t: MergeTask) =>
    t.type === "A" ? candidate.a.includes("fixA") : t.type === "B" ? candidate.b.includes("fixB") : candidate.a === MERGE_SEED.a;
  return { scores: tasks.map((t) => (pass(t) ? 1 : 0)), feedback: tasks.map((t) => (pass(t) ? "ok" : `failed type ${t.type}`)), traces: tasks.map(() => "out") };
}
export async function mergeReflect({ candidate, component }: { candidate: Candidate; component: string }): Promise<string> {
  return "```\n" + `${candidate[component]} fix${component.toUpperCase()}` + "\n```";
}
