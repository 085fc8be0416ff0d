import { RubricateError } from "../errors.js";
import { ambiguity } from "../text/json.js";
import type { CompletionResponse, TokenLogprob } from "../providers/types.js";
import type { Answer } from "./answer.js";

/** One parsed answer: the answer's fields (answer.ts), with P(yes) when logprobs allow. */
export type ParsedAnswer = Answer & {
  probability?: number;
  /** The span the judge quoted, when the question asked for one (`quote: true`). */
  quote?: string;
  /** The judge's stated probability of yes (`probability: confidence`), when in [0, 1]. */
  confidence?: number;
};

/**
 * An answer from one entry of the model's JSON, read with the leniency a model without structured
 * output needs: a verdict written as "yes"/"no"/"true"/"false", a missing reason. Other keys (an
 * entry's id, a model's extras) are dropped. Returns why not when the entry is no answer.
 */
function readAnswer(entry: Record<string, unknown>, id?: string): Answer | string {
  const verdict = readVerdict(entry.verdict);
  if (verdict === undefined) return `malformed verdict ${JSON.stringify(entry.verdict)}${id === undefined ? "" : ` for "${id}"`}`;
  // The answer schema's two fields, read leniently above: nothing is left for a validation to refuse.
  return { reason: typeof entry.reason === "string" ? entry.reason : "", verdict };
}

/**
 * Reads a batched answer. Returns the well-formed answers by id and the ids that were missing,
 * duplicated or malformed (to be re-asked one at a time). Never guesses a verdict.
 */
export function parseBatched(response: CompletionResponse, ids: string[]): { answers: Map<string, ParsedAnswer>; problems: Map<string, string> } {
  const answers = new Map<string, ParsedAnswer>();
  const problems = new Map<string, string>();
  refuseRefusal(response);
  const read = readJson(response.text);
  const data = read?.value;
  const list = isObject(data) && Array.isArray(data.answers) ? data.answers : Array.isArray(data) ? data : undefined;
  if (!list) {
    for (const id of ids) problems.set(id, `the judge's answer has no "answers" list${response.finishReason === "length" ? " (output truncated)" : ""}`);
    return { answers, problems };
  }
  // A key twice (`"verdict": true, "verdict": false`): JSON.parse keeps the last, a guess at what the judge meant.
  const doubt = ambiguity(read!.json);
  if (doubt !== undefined) {
    for (const id of ids) problems.set(id, `the judge's answer reads two ways: ${doubt}`);
    return { answers, problems };
  }
  const probabilities = verdictProbabilities(response.logprobs);
  const seen = new Map<string, number>();
  list.forEach((entry: unknown, position: number) => {
    if (!isObject(entry) || typeof entry.id !== "string") return;
    seen.set(entry.id, (seen.get(entry.id) ?? 0) + 1);
    const read = readAnswer(entry, entry.id);
    if (typeof read === "string") {
      problems.set(entry.id, read);
      return;
    }
    const answer: ParsedAnswer = read;
    if (typeof entry.quote === "string") answer.quote = entry.quote;
    if (isProbability(entry.confidence)) answer.confidence = entry.confidence;
    // Logprob positions follow the order of verdicts in the text, which is the order of the list.
    if (probabilities.length === list.length && probabilities[position] !== undefined) answer.probability = probabilities[position];
    answers.set(entry.id, answer);
  });
  for (const id of ids) {
    if ((seen.get(id) ?? 0) > 1) {
      answers.delete(id);
      problems.set(id, `"${id}" answered ${seen.get(id)} times`);
    } else if (!seen.has(id)) problems.set(id, `no answer for "${id}"`);
  }
  // Entries for ids not asked are neither answers nor problems of this call.
  const asked = new Set(ids);
  for (const id of answers.keys()) if (!asked.has(id)) answers.delete(id);
  for (const id of problems.keys()) if (!asked.has(id)) problems.delete(id);
  return { answers, problems };
}

/**
 * Reads a single-question answer; throws `JUDGE_PARSE` (retryable by the judge) when it cannot,
 * and when it reads two ways: an entry that names another question than `id` (the asked one), or
 * a key written twice (`"verdict": true, "verdict": false`: `JSON.parse` would keep the last one,
 * a guess at the judge's meaning).
 */
export function parseSingle(response: CompletionResponse, id?: string): ParsedAnswer {
  refuseRefusal(response);
  const json = readJson(response.text);
  const data = json?.value;
  const entry = isObject(data) && isObject(data.answers) ? data.answers : isObject(data) && Array.isArray(data.answers) && data.answers.length === 1 ? data.answers[0] : data;
  const read = isObject(entry) ? readAnswer(entry) : undefined;
  const cannot = (why: string) => new RubricateError("JUDGE_PARSE", `${why}${response.finishReason === "length" ? " (output truncated)" : ""}: ${preview(response.text)}`, { retryable: true });
  if (read === undefined || typeof read === "string") throw cannot("cannot read a verdict from the judge's answer");
  if (id !== undefined && typeof entry.id === "string" && entry.id !== id) throw cannot(`the judge answered "${entry.id}", not the question asked ("${id}")`);
  const doubt = ambiguity(json!.json);
  if (doubt !== undefined) throw cannot(`the judge's answer reads two ways: ${doubt}`);
  return withExtras(read, entry, response);
}

/** The answer with what the entry and the response add to it: a quote, a stated confidence, P(yes) from the logprobs. */
function withExtras(read: Answer, entry: Record<string, unknown>, response: CompletionResponse): ParsedAnswer {
  const answer: ParsedAnswer = read;
  if (typeof entry.quote === "string") answer.quote = entry.quote;
  if (isProbability(entry.confidence)) answer.confidence = entry.confidence;
  const [probability] = verdictProbabilities(response.logprobs);
  if (probability !== undefined) answer.probability = probability;
  return answer;
}

function refuseRefusal(response: CompletionResponse): void {
  if (response.finishReason === "refusal" || response.refusal) {
    throw new RubricateError("JUDGE_REFUSAL", `the judge refused to answer: ${preview(response.refusal ?? response.text)}`, { retryable: true });
  }
}

/** JSON from a text that may wrap it in a code fence or prose; undefined when there is none. */
export function parseJsonText(text: string): unknown {
  return readJson(text)?.value;
}

/** The JSON a text holds (whole, in a code fence, or between its outer braces), and the JSON text it was read from. */
function readJson(text: string): { value: unknown; json: string } | undefined {
  // The next reading is cut out only when the previous one failed: a model with JSON output
  // (every answer of a structured-output judge) parses at the first.
  const readings = [() => text, () => fencedBlock(text), () => sliceBraces(text)];
  for (const reading of readings) {
    const candidate = reading()?.trim();
    if (candidate === undefined) continue;
    try {
      return { value: JSON.parse(candidate), json: candidate };
    } catch {
      // try the next reading
    }
  }
  return undefined;
}

/** The text inside the first ``` (or ```json) fence that is closed; found by index, in linear time. */
function fencedBlock(text: string): string | undefined {
  const open = text.indexOf("```");
  if (open < 0) return undefined;
  let from = open + 3;
  if (text.slice(from, from + 4).toLowerCase() === "json") from += 4;
  const close = text.indexOf("```", from);
  return close < 0 ? undefined : text.slice(from, close);
}

function sliceBraces(text: string): string | undefined {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  return start >= 0 && end > start ? text.slice(start, end + 1) : undefined;
}

function readVerdict(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (typeof value === "string") {
    const v = value.trim().toLowerCase();
    if (v === "yes" || v === "true") return true;
    if (v === "no" || v === "false") return false;
  }
  return undefined;
}

/**
 * P(yes) for each verdict value in the output, in order: the top-logprob mass on "true" renormalised
 * against "false" at the token that starts each verdict value.
 */
export function verdictProbabilities(logprobs: TokenLogprob[] | undefined): (number | undefined)[] {
  if (!logprobs?.length) return [];
  const out: (number | undefined)[] = [];
  // Only the end of the text so far matters ("verdict": with any white space), so keep a short
  // tail with white space runs collapsed: linear in the output, where testing a regex against the
  // whole growing text was quadratic.
  let tail = "";
  for (const token of logprobs) {
    if (VERDICT_KEY_AT_END.test(tail) && /^\s*(true|false|t|f)/i.test(token.token)) {
      const top = token.top?.length ? token.top : [{ token: token.token, logprob: token.logprob }];
      let yes = 0;
      let no = 0;
      for (const t of top) {
        const word = t.token.trim().toLowerCase();
        if (word.length > 0 && "true".startsWith(word)) yes += Math.exp(t.logprob);
        else if (word.length > 0 && "false".startsWith(word)) no += Math.exp(t.logprob);
      }
      out.push(yes + no > 0 ? yes / (yes + no) : undefined);
    }
    tail = (tail + token.token).replace(/\s+/g, " ").slice(-TAIL);
  }
  return out;
}

/** `"verdict":` at the end of the text, white space collapsed. */
const VERDICT_KEY_AT_END = /"verdict" ?: ?$/;
/** Enough characters for `"verdict" : ` after collapsing white space. */
const TAIL = 32;

const isProbability = (v: unknown): v is number => typeof v === "number" && v >= 0 && v <= 1;

/**
 * P(yes) from a one-word yes/no answer's first token: its top logprobs' mass on yes-words
 * renormalised against no-words (the mean of the two-point distribution, not the top choice);
 * undefined without logprobs or without either word among them.
 */
export function probeProbability(response: CompletionResponse): number | undefined {
  const first = response.logprobs?.[0];
  if (!first) return undefined;
  const top = first.top?.length ? first.top : [{ token: first.token, logprob: first.logprob }];
  let yes = 0;
  let no = 0;
  for (const t of top) {
    const word = t.token.trim().toLowerCase().replace(/[^a-z]/g, "");
    if (word === "yes" || word === "y" || word === "true") yes += Math.exp(t.logprob);
    else if (word === "no" || word === "n" || word === "false") no += Math.exp(t.logprob);
  }
  return yes + no > 0 ? yes / (yes + no) : undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const preview = (text: string) => JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
