/**
 * Scripted worlds for the GEPA targets, served over the OpenAI wire format:
 * - policy prompts: a policy that follows exactly the rules written in its system prompt (and
 *   answers in one word when told to), a judge that checks the rule a task needs, and a
 *   reflection model that adds the rule named in the first failure (and now and then proposes a
 *   harmful line);
 * - judge questions: a judge whose verdicts depend on the question's wording, expert labels from
 *   a fixture, and a reflection model that rewords the question from the disagreements.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Reply, TestServer } from "../../../src/testing/servers/common.js";
import { judgeResponder, type AskedQuestion, type JudgeRequestView } from "../../../src/testing/servers/judge-responder.js";
import { startOpenAIServer } from "../../../src/testing/servers/openai-server.js";
import { HARMFUL, RULES, fnv } from "../world.js";

export { HARMFUL, RULES };
export const POLICY_MODEL = "policy-model";
export const JUDGE_MODEL = "judge-model";
export const REFLECTOR_MODEL = "reflector-model";
export const FIXTURES = join(import.meta.dirname, "..", "..", "fixtures", "optimize");

type Wire = { role: string; content: string | null };
const textOf = (m: Wire | undefined) => m?.content ?? "";

/** The policy: answers the user's prompt, marking each rule its system prompt holds; one word when told so. */
export function policyReply(messages: Wire[]): string {
  const system = textOf(messages.find((m) => m.role === "system"));
  const prompt = textOf([...messages].reverse().find((m) => m.role === "user"));
  if (system.includes(HARMFUL)) return "Done.";
  const followed = RULES.filter((r) => system.includes(r)).map((r) => ` (follows: ${r})`);
  return `Here is my answer to "${prompt}".${followed.join("")}`;
}

/** The rubric judge of the policy world: does the response mark the rule the question names? */
export function policyJudge(q: AskedQuestion, view: JudgeRequestView): { verdict: boolean; reason: string } {
  const rule = /rule "([^"]+)"/.exec(q.question)?.[1] ?? "?";
  if (/### response\nDone\.$/m.test(view.sample)) return { verdict: false, reason: "the response is a single word" };
  const ok = view.sample.includes(`(follows: ${rule})`);
  return { verdict: ok, reason: ok ? "it does" : `the response ignores the rule "${rule}"` };
}

const fenced = (prompt: string) => /```\n([\s\S]*?)\n```/.exec(prompt)?.[1] ?? "";
const answer = (text: string) => `Reading the feedback, I would change the instructions.\n\`\`\`\n${text}\n\`\`\``;

/** The reflection model of the policy world: reads the current prompt and the feedback, proposes a new prompt. */
export function policyReflector(prompt: string): string {
  let text = fenced(prompt);
  const feedback = [...prompt.matchAll(/### Feedback\n([\s\S]*?)(?=\n## Example|\n\nWrite an improved)/g)].map((m) => m[1]).join("\n");
  if (fnv(prompt) % 4 === 0 && !text.includes(HARMFUL)) return answer(`${text}\n${HARMFUL}`);
  if (feedback.includes("single word")) return answer(text.split("\n").filter((l) => l !== HARMFUL).join("\n"));
  const rule = /ignores the rule "([^"]+)"/.exec(feedback)?.[1];
  if (rule && !text.includes(rule)) text = `${text}\n${rule}`;
  return answer(text);
}

/** Tasks of the policy world: each needs one rule (task i needs rule i mod 6). */
export function policyTasks(count: number): { id: string; inputs: { prompt: string; rule: string } }[] {
  return Array.from({ length: count }, (_, i) => ({ id: `t${i}`, inputs: { prompt: `Help with request ${i}.`, rule: RULES[i % RULES.length] } }));
}

/** The environment file of the policy world (JSON is YAML). */
export function policyEnv(count = 24): Record<string, unknown> {
  return {
    id: "rules-env",
    dataset: policyTasks(count),
    harness: { system: `You are a helpful assistant.\n${RULES[0]}`, prompt: "{{prompt}}" },
    rubric: {
      id: "follows-rules",
      inputs: ["prompt", "rule", "response"],
      criteria: [{ id: "follows-rule", question: 'Does the response follow the rule "{{rule}}"?' }],
    },
  };
}

// ---- judge questions -------------------------------------------------------------------------

/** The question wordings the question reflector writes, by which qualifiers they carry. */
export const WORDINGS: Record<string, string> = {
  "": "Does the response cite evidence for its claims?",
  named: "Does the response cite a named source for its claims?",
  specific: "Does the response cite specific evidence for its claims?",
  "named+specific": "Does the response cite a specific, named source for its claims?",
};
export const SEED_QUESTION = WORDINGS[""];
export const BEST_QUESTION = WORDINGS["named+specific"];
const qualifiers = (q: string) => ({ named: /\bnamed\b/.test(q), specific: /\bspecific\b/.test(q) });
const wording = (f: { named: boolean; specific: boolean }) => WORDINGS[[f.named && "named", f.specific && "specific"].filter(Boolean).join("+")];

/**
 * The question judge: counts "studies show" as evidence unless the question asks for a named
 * source, and "according to some people" unless it asks for specific evidence. The experts say
 * YES only for a source named outright ("according to Dr. …").
 */
export function questionJudge(q: AskedQuestion, view: JudgeRequestView): { verdict: boolean; reason: string } {
  const f = qualifiers(q.question);
  if (/according to Dr\. \w+/i.test(view.sample)) return { verdict: true, reason: "it names its source, a doctor" };
  if (/studies show/i.test(view.sample)) return f.named ? { verdict: false, reason: "it says 'studies show' but names no source" } : { verdict: true, reason: "it says 'studies show', which is evidence" };
  if (/according to some people/i.test(view.sample)) return f.specific ? { verdict: false, reason: "'some people' is not specific" } : { verdict: true, reason: "it says 'according to some people', which cites someone" };
  return { verdict: false, reason: "it cites nothing" };
}

/**
 * The question reflector: from the disagreements it reads, adds the qualifier that fixes one
 * (named source for "studies show", specific evidence for "some people"). Its first answer is a
 * vague rewording ("good evidence"), which the question checks must refuse.
 */
export function makeQuestionReflector(): (prompt: string) => string {
  let calls = 0;
  return (prompt) => {
    const current = fenced(prompt);
    const f = qualifiers(current);
    if (calls++ === 0) return answer(current.replace("cite", "cite good"));
    const wrong = [...prompt.matchAll(/humans: NO, judge: YES[^\n]*/g)].map((m) => m[0]);
    if (wrong.some((w) => w.includes("studies show")) && !f.named) return answer(wording({ ...f, named: true }));
    if (wrong.some((w) => w.includes("some people")) && !f.specific) return answer(wording({ ...f, specific: true }));
    return answer(current);
  };
}

/** One server for both worlds, routing by model: the policy, the judge (by `judge`) and the reflector (by `reflect`). */
export async function startServer(
  judge: (q: AskedQuestion, view: JudgeRequestView) => { verdict: boolean; reason: string },
  reflect: (prompt: string) => string,
  options: { latencyMs?: number } = {},
): Promise<TestServer<unknown>> {
  const judgeReply = judgeResponder(judge);
  return (await startOpenAIServer({
    latencyMs: options.latencyMs,
    respond: (body): Reply => {
      const model = String(body.model);
      const messages = body.messages as Wire[];
      if (model === JUDGE_MODEL) return judgeReply(body);
      if (model === REFLECTOR_MODEL) return reflect(textOf(messages.at(-1)));
      if (model === POLICY_MODEL) return policyReply(messages);
      return { fault: "500" };
    },
  })) as TestServer<unknown>;
}

/** Expert labels of the question world (the fixture). */
export const labelsFixture = () => join(FIXTURES, "cites-source.labels.jsonl");
export const rubricFixture = () => join(FIXTURES, "cites-source.yaml");
export const readFixture = (name: string) => readFileSync(join(FIXTURES, name), "utf8");
