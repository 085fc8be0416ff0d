/**
 * Plays an LLM judge on the local wire-format servers: reads the question ids and the sample out
 * of the prompt rubricate sent, and answers in the JSON shape the request asked for. Tests decide
 * each verdict, or make the judge misbehave (drop an id, answer garbage).
 */
import type { Reply } from "./common.js";

/** One question as the judge prompt shows it. */
export interface AskedQuestion {
  id: string;
  question: string;
}

/** A test's decision for one question: a verdict, or a misbehaviour. */
export type Decision = boolean | "drop" | "malformed" | { verdict: boolean; reason?: string };

/** What a scripted judge sees of a request: its system text, sample block and questions. */
export interface JudgeRequestView {
  prompt: string;
  sample: string;
  questions: AskedQuestion[];
  batched: boolean;
}

/** The prompt text of an OpenAI or Anthropic request body. */
export function promptText(body: Record<string, unknown>): string {
  const messages = (body.messages ?? []) as { content: unknown }[];
  return messages
    // An assistant turn that only calls tools has `content: null` on the OpenAI wire.
    .map((m) => (typeof m.content === "string" ? m.content : Array.isArray(m.content) ? (m.content as { text?: string }[]).map((p) => p.text ?? "").join("") : ""))
    .join("\n");
}

/** The questions, the delimited sample and the mode of a judge request. */
export function viewRequest(body: Record<string, unknown>): JudgeRequestView {
  const prompt = promptText(body);
  const questions = [...prompt.matchAll(/^- id: (\S+)\n {2}question: (.*)$/gm)].map((m) => ({ id: m[1], question: m[2] }));
  const batched = prompt.includes(`{"answers"`);
  let sample: string | undefined;
  // Found when a test's decision reads it: the benchmark server's answers never do.
  return {
    prompt,
    get sample() {
      return (sample ??= /<sample-([0-9a-f]{16})>\n([\s\S]*?)\n<\/sample-\1>/.exec(prompt)?.[2] ?? "");
    },
    questions,
    batched,
  };
}

/**
 * A `respond` callback for either server that answers judge requests with `decide`.
 * @example startOpenAIServer({ respond: judgeResponder((q, view) => view.sample.includes("Paris")) })
 */
export function judgeResponder(decide: (question: AskedQuestion, view: JudgeRequestView) => Decision, options: { garbage?: (view: JudgeRequestView) => boolean } = {}) {
  return (body: Record<string, unknown>): Reply => {
    const view = viewRequest(body);
    if (options.garbage?.(view)) return "I think the answer is probably yes, mostly.";
    const answers = view.questions.flatMap((q): { id: string; reason: string; verdict: boolean | string }[] => {
      const d = decide(q, view);
      if (d === "drop") return [];
      if (d === "malformed") return [{ id: q.id, reason: "unsure", verdict: "perhaps" }];
      const verdict = typeof d === "boolean" ? d : d.verdict;
      const reason = typeof d === "object" && d.reason ? d.reason : `${q.id}: ${verdict ? "yes" : "no"}`;
      return [{ id: q.id, reason, verdict }];
    });
    if (view.batched) return JSON.stringify({ answers });
    const only = answers[0];
    return only ? JSON.stringify({ reason: only.reason, verdict: only.verdict }) : "no answer";
  };
}
