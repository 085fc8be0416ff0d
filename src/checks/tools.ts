/**
 * A rollout's trajectory for the `tool_calls` kind (kinds/tool-calls.ts): the calls in order,
 * from rubricate rollouts (`tool_calls: [{ name, arguments, result }]`) or OpenAI chat messages
 * (`messages` with assistant `tool_calls` and `role: tool` results), and whether an answer
 * states a tool's result.
 */
import { RubricateError } from "../errors.js";
import type { Sample } from "../types.js";
import { lastBoxed } from "./math/extract.js";
import { answerNumber, parseNumber, sameNumber, type ReadNumber } from "./number.js";
import { ambiguity, replaceSpans } from "../text/json.js";
import { asciiNumerals } from "../text/numerals.js";

/** One call in a trajectory. */
export interface TrajectoryCall {
  name: string;
  /** The arguments as the model wrote them (a JSON string), or an object. */
  arguments: unknown;
  result?: string;
  /**
   * Why the call did not work, as the trajectory records it: a rubricate rollout's `error`
   * (`bad_arguments`, `unknown_tool`, `tool_error`, `timeout`), or `is_error: true` (Anthropic's
   * tool results). OpenAI `messages` carry no such mark, so their calls never have one.
   */
  failed?: string;
}

/** The calls of a trajectory that worked: a call the tool refused or that failed earns nothing a rubric asks to be done. */
export const workedCalls = (calls: readonly TrajectoryCall[]): TrajectoryCall[] => calls.filter((c) => c.failed === undefined);

/**
 * The tool calls of a sample, in order, from rubricate's `tool_calls` or OpenAI-style `messages`.
 * A trajectory that is not a list is the data's error; a call in it that is not a call (no tool
 * name, not an object) is what the policy wrote: with `malformed`, it is left out and described
 * there (the `tool_calls` check fails on it), else it throws BAD_INPUT.
 */
export function readTrajectory(sample: Sample, field?: string, malformed?: string[]): TrajectoryCall[] {
  const source = field ?? (sample.tool_calls !== undefined ? "tool_calls" : sample.messages !== undefined ? "messages" : undefined);
  if (source === undefined) throw new RubricateError("MISSING_INPUT", "the sample has no tool_calls or messages input for a tool_calls check");
  let value = sample[source];
  // An empty cell (a CSV column, a rollout without tools) is an empty trajectory.
  if (typeof value === "string" && value.trim() === "") return [];
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      throw new RubricateError("BAD_INPUT", `the sample's "${source}" input is not a JSON list of tool calls or messages`);
    }
  }
  if (!Array.isArray(value)) throw new RubricateError(value === undefined || value === null ? "MISSING_INPUT" : "BAD_INPUT", `the sample's "${source}" input is not a list of tool calls or messages`);
  const isMessages = value.some((m) => m && typeof m === "object" && "role" in m);
  const read = (raw: unknown, where: string): TrajectoryCall | undefined => {
    if (malformed === undefined) return fromCall(raw, where);
    try {
      return fromCall(raw, where);
    } catch (e) {
      malformed.push((e as Error).message);
      return undefined;
    }
  };
  return isMessages ? fromMessages(value, read) : value.flatMap((c, i) => read(c, `${source}[${i}]`) ?? []);
}

function fromCall(raw: unknown, where: string): TrajectoryCall {
  if (!raw || typeof raw !== "object") throw new RubricateError("BAD_INPUT", `${where} is not a tool call object`);
  const call = raw as Record<string, unknown>;
  const fn = (call.function ?? call) as Record<string, unknown>;
  if (typeof fn.name !== "string") throw new RubricateError("BAD_INPUT", `${where} has no tool name`);
  const result = call.result ?? call.output;
  const failed = failureOf(call);
  return { name: fn.name, arguments: fn.arguments ?? fn.args ?? fn.input ?? {}, ...(result !== undefined && result !== null ? { result: typeof result === "string" ? result : JSON.stringify(result) } : {}), ...(failed ? { failed } : {}) };
}

/** The recorded failure of a call (its `error`, or `is_error: true`), or undefined when it worked or the record does not say. */
function failureOf(call: Record<string, unknown>): string | undefined {
  const error = call.error;
  if (typeof error === "string" && error.trim() !== "") return error.trim().slice(0, 80);
  return error === true || (error !== null && typeof error === "object") || call.is_error === true ? "error" : undefined;
}

function fromMessages(messages: unknown[], read: (raw: unknown, where: string) => TrajectoryCall | undefined): TrajectoryCall[] {
  const calls: TrajectoryCall[] = [];
  const byId = new Map<string, TrajectoryCall>();
  messages.forEach((m, i) => {
    if (!m || typeof m !== "object") return;
    const message = m as Record<string, unknown>;
    const toolCalls = message.tool_calls ?? message.toolCalls;
    if (message.role === "assistant" && Array.isArray(toolCalls)) {
      toolCalls.forEach((c, j) => {
        // In messages a result comes only from a `tool` message: a result, output or error field
        // on the assistant's own call is the policy's word, not the tool's.
        const parsed = read(c, `messages[${i}].tool_calls[${j}]`);
        if (!parsed) return;
        const { result: _claimed, failed: _claimedFailure, ...call } = parsed;
        calls.push(call);
        const id = (c as { id?: unknown }).id;
        if (typeof id === "string") byId.set(id, call);
      });
    }
    if (message.role === "tool") {
      const id = message.tool_call_id ?? message.toolCallId;
      const content = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
      const call = typeof id === "string" ? byId.get(id) : calls[calls.length - 1];
      if (call) call.result = content;
    }
  });
  return calls;
}

export const list = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

export function parseArguments(args: unknown): { ok: true; value: unknown } | { ok: false; error: string } {
  if (typeof args !== "string") return { ok: true, value: args };
  let value: unknown;
  try {
    value = JSON.parse(args);
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
  // `{"city": "Lyon", "city": "Paris"}` would be checked as Paris while the tool may read Lyon.
  const doubt = ambiguity(args);
  return doubt === undefined ? { ok: true, value } : { ok: false, error: `ambiguous JSON: ${doubt}` };
}

/**
 * The value a tool returned: a JSON number or string as itself, an object or list with one scalar
 * (or one under value/result/answer/output/total) as that scalar, else the text as written.
 */
export function resultValue(result: string): string {
  // An integer as the tool printed it: JSON.parse would round one past 2^53 (12345678901234567890).
  if (/^\s*-?\d+\s*$/.test(result)) return result.trim();
  let data: unknown;
  try {
    data = JSON.parse(exactIntegers(result));
  } catch {
    return result.trim();
  }
  if (typeof data === "number" || typeof data === "string" || typeof data === "boolean") return String(data).trim();
  const leaves = scalarLeaves(data);
  const named = leaves.filter((l) => /^(value|result|answer|output|total)$/i.test(l.key));
  const chosen = leaves.length === 1 ? leaves[0] : named.length === 1 ? named[0] : undefined;
  return chosen ? String(chosen.value).trim() : result.trim();
}

/**
 * JSON with each integer past 2^53 written as a string of its digits, so a leaf keeps the digits
 * the tool printed: JSON.parse would round `{"total": 12345678901234567891}` to a double that
 * String() writes as 12345678901234567000, which a wrong answer's digits then matched. Text that is
 * not JSON comes back as it is (JSON.parse refuses it next).
 */
function exactIntegers(json: string): string {
  const spans: [number, number][] = [];
  try {
    if (ambiguity(json, { unsafeIntegers: spans }) !== undefined || spans.length === 0) return json;
  } catch {
    return json;
  }
  return replaceSpans(json, spans, (written) => `"${written}"`);
}

/**
 * The scalars of a JSON value in document order, each with the key it sits under (an array's items
 * take the array's key). Without recursion: a result nested 100,000 deep (a code tool prints what
 * the policy's code built) overflowed the stack, and the check was an error instead of an answer.
 */
function scalarLeaves(data: unknown): { key: string; value: string | number | boolean }[] {
  const leaves: { key: string; value: string | number | boolean }[] = [];
  const stack: [unknown, string][] = [[data, ""]];
  while (stack.length > 0) {
    const [value, key] = stack.pop()!;
    if (typeof value === "number" || typeof value === "string" || typeof value === "boolean") leaves.push({ key, value });
    else if (Array.isArray(value)) for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], key]);
    else if (value && typeof value === "object") {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i][1], entries[i][0]]);
    }
  }
  return leaves;
}

/**
 * Where the answer's own value is stated: the last \boxed{} (braces matched: `\boxed{\text{…}}`),
 * else after the last "answer is"/"Answer:", else the whole text (`stated` false).
 */
function answerPart(response: string): { text: string; stated: boolean } {
  const boxed = lastBoxed(response);
  if (boxed !== undefined) return { text: boxed, stated: true };
  const phrase = [...response.matchAll(/\b(?:final\s+)?answer\s*(?:is\b|[:：])\s*([^\n]+)/gi)].at(-1);
  return phrase ? { text: phrase[1], stated: true } : { text: response, stated: false };
}

/** Where a sentence ends: a stop before a capital, not after an initial or a short title ("St. Louis", "D.C."). */
const SENTENCE_END = /(?<!\b(?:\p{Lu}|St|Mt|Ft|Mr|Mrs|Ms|Dr|Jr|Sr|vs|etc|No))[.!?]\s+(?=\p{Lu})/u;
/** An aside in parentheses after the answer: "Lyon (the search returned "Paris")". Bounded, so unclosed "(" stay linear. */
const ASIDE = /\s\([^()]{0,300}\)/g;

/**
 * The answer as a text result must appear in it: its first sentence, without asides in
 * parentheses, so neither "Lyon (the search returned "Paris")" nor "The answer is Lyon. The tool
 * said Paris." states Paris. A parenthesis that adds another candidate ("Paris (and Lyon)",
 * "Paris (or maybe Lyon)", "Paris (also Lyon)") is no aside: it stays, and reads as the list or
 * the alternatives it offers (amongAlternatives).
 */
function statedAnswer(part: string): string {
  const end = SENTENCE_END.exec(part);
  const sentence = end ? part.slice(0, end.index) : part;
  const bare = sentence.replace(ASIDE, (aside) => (CANDIDATE_ASIDE.test(aside) ? aside : " "));
  return bare.trim() === "" ? sentence : bare;
}

/**
 * Words that deny what follows them within a clause ("not Paris", "rather than Paris"), and the
 * marks that end a clause: a text is denied when the last of these before it is a word.
 */
const NEGATION_OR_CLAUSE_END = /\b(?:not|no|never|nor|isn't|isn’t|aren't|wasn't|neither|rather than|instead of|other than|except|unlike|wrong(?:ly)?|incorrect(?:ly)?)\b|[.;:!?,]/gi;

/** Two alternatives offered as the answer: "X or Y", "either X or Y", "X, Y or Z", "X ∨ Y" (not "or so"). */
const OR = String.raw`(?:,\s*)?(?:\bor\b(?!\s+so\b)|\\lor\b|∨)`;
/** Between two texts, a slash or a bar offers alternatives too ("Lyon/Paris", "Lyon | Paris"); between numbers a slash is a fraction. */
const OR_TEXT = String.raw`(?:${OR}|[/|])`;
/** A number written as an answer alternative ("2148000 or 3,000,000"). */
const NUMBER_TEXT = String.raw`[-−]?\d[\d,]*(?:\.\d+)?`;
/** Between two numbers: "or", "or maybe", "(or perhaps", "(maybe" — a hedge however it is put. */
const NUMBER_ALTERNATIVE = String.raw`\s*(?:[(\[]\s*)?(?:${OR}\s*(?:maybe\s+|perhaps\s+|possibly\s+)?|(?:maybe|perhaps|possibly)\s+)`;
// Starting only where a number starts (not inside a run of digits and commas) keeps the scan linear.
const NUMBER_HEDGE = new RegExp(`(?<![\\d,.])(${NUMBER_TEXT})${NUMBER_ALTERNATIVE}(${NUMBER_TEXT})`, "gi");
/** Words that offer what follows them as a possibility: "(perhaps Lyon)", ", maybe Lyon". */
const MAYBE = String.raw`(?:maybe|perhaps|possibly)\s`;
/** "…, Nice or " before a text, or " or Lyon" / ", Lyon or Nice" / "/Lyon" / "(perhaps Lyon)" / ", maybe Lyon" after it. */
const ALTERNATIVE_BEFORE = new RegExp(`(?:${OR_TEXT}\\s*(?:maybe\\s+|perhaps\\s+|either\\s+)?|[(\\[]\\s*${MAYBE}\\s*)$`, "i");
const ALTERNATIVE_AFTER = new RegExp(`^\\s*(?:(?:,[^.;:!?]*?)?${OR_TEXT}|\\(\\s*${OR_TEXT}|[(,]\\s*${MAYBE})`, "i");

/**
 * A number as a list writes it ("2148000", "3,000,000", "−1.5"), starting only where a number
 * starts (not inside a run of digits and commas), so each run is read once.
 */
const LISTED_NUMBER = /(?<![\d,.])[-−]?\d+(?:,\d{3})*(?:\.\d+)?/g;
/** The words that join the items of a list: "and", "and/or", "as well as", "&". */
const AND = String.raw`(?:\band(?:\/or)?|\bas\s+well\s+as|&)`;
/** "also" adding a candidate ("Paris (also Lyon)"), not naming the same one ("also known as", "also called"). */
const ALSO = String.raw`\balso\b(?!\s+(?:known|called|named|spelled|spelt|written|referred)\b)`;
/**
 * How two numbers of one list are joined: AND, a comma, ", and" after a comma ("1, 2, and 3"), a
 * parenthesis that adds the next with AND or "also" ("2148000 (and 3000000)", "2148000 (also
 * 3000000)"), or ", also" ("2148000, also 3000000").
 */
const LIST_JOIN = new RegExp(`^\\s*(?:(\\(\\s*(?:${AND}(?:\\s+also)?|${ALSO})|,\\s*${ALSO})|(${AND})|,(?:\\s*(${AND}))?)\\s*$`, "i");

/**
 * True when the answer's number is listed with a different one by "and" ("2148000 and 3000000",
 * "2148000, 3,000,000 and 5"): candidates offered together, a hedge as "or" is. Only a list that
 * holds the answer counts ("2148000, counted between 2019 and 2020" states 2148000), and a clause
 * after a comma is no list item ("2148000, and 3 tools were called").
 */
function listsOtherNumbers(part: string, answer: ReadNumber): boolean {
  let list: ReadNumber[] = [];
  let joinedByAnd = false;
  let joinedByComma = false;
  let end = -1;
  const hedges = () => joinedByAnd && list.some((n) => sameNumber(n, answer)) && list.some((n) => !sameNumber(n, answer));
  for (const m of part.matchAll(LISTED_NUMBER)) {
    const join = end === -1 ? null : LIST_JOIN.exec(part.slice(end, m.index));
    const [and, commaAnd] = [join?.[1] !== undefined || join?.[2] !== undefined, join?.[3] !== undefined];
    // ", and" joins a list only after a comma has ("1, 2, and 3"); alone it opens a clause ("2148000, and 3 tools").
    if (join === null || (commaAnd && !joinedByComma)) {
      if (hedges()) return true;
      [list, joinedByAnd, joinedByComma] = [[], false, false];
    } else if (and || commaAnd) joinedByAnd = true;
    else joinedByComma = true;
    list.push({ value: parseNumber(m[0]), written: m[0] });
    end = m.index + m[0].length;
  }
  return hedges();
}

/** True when the answer offers two different numbers as alternatives: a hedge that would otherwise pass on whichever is right. */
function hedgesNumbers(part: string): boolean {
  for (const m of part.matchAll(NUMBER_HEDGE)) {
    const [a, b] = [m[1], m[2]].map((n) => Number(n.replace(/[,\s]/g, "").replace("−", "-")));
    if (a !== b) return true;
  }
  return false;
}

/** One item of a list after the text, a single word ("Lyon" of "Paris, Lyon and Nice"); "the capital" is not one. */
const LIST_ITEM = String.raw`[^\s,.;:!?()]+`;
/**
 * A word that, after "and", opens a clause rather than naming the list's next item: a pronoun, a
 * verb, a denial ("Paris and it is the capital", "Paris and has 2 million people", "Paris and not Lyon").
 */
const CLAUSE_START = String.raw`(?:it|its|this|that|these|those|there|here|he|she|they|we|i|you|which|who|so|then|thus|hence|therefore|is|was|are|were|has|have|had|does|did|will|would|can|could|should|may|might|must|not|no|nothing|none|only)\b`;
/**
 * A parenthesis that adds a candidate to a list: "(and Lyon)", "(and also Lyon)", "(also Lyon)",
 * "(& Lyon)", "(as well as Lyon)"; not a clause ("(and it is the capital)", "(and its suburbs)")
 * nor another name of the same ("(also known as …)").
 */
const ASIDE_LIST = String.raw`\(\s*(?:${AND}(?:\s+also)?|${ALSO})\s+(?!${CLAUSE_START})[^\s)]`;
/** A parenthesis that offers an alternative: "(or Lyon)", "(or maybe Lyon)", "(/Lyon)", "(perhaps Lyon)" (not "(or so …)"). */
const ASIDE_ALTERNATIVE = String.raw`\(\s*(?:${OR_TEXT}|${MAYBE})`;
/** An aside that adds another candidate: no aside, a list or alternatives (statedAnswer keeps it). */
const CANDIDATE_ASIDE = new RegExp(`^\\s(?:${ASIDE_LIST}|${ASIDE_ALTERNATIVE})`, "i");
/**
 * "… and Lyon", ", Lyon and Nice", ", Lyon, and Nice", " (and Lyon)", ", also Lyon" after a text: it
 * is one of a list. A comma then "and" alone opens a clause ("Paris, and it is the capital").
 */
const LISTED_AFTER = new RegExp(`^(?:(?:(?:,\\s*${LIST_ITEM})+,?)?\\s*${AND}\\s+(?!${CLAUSE_START})\\S|\\s*${ASIDE_LIST}|,\\s*${ALSO}\\s+(?!${CLAUSE_START})\\S)`, "i");
/** "Lyon and …", "Lyon, Nice, and …" before a text: it is one of a list. ", and" after a lone clause is not ("I searched, and Paris …"). */
const LISTED_BEFORE = new RegExp(`(?:[^\\s,]|,\\s*${LIST_ITEM},)\\s*${AND}\\s+$`, "i");

/**
 * True when the text at [start, end) is one of alternatives offered together ("Lyon, Nice or
 * Paris", "Paris or Lyon") or one of a list of candidates ("Paris and Lyon", "Lyon, Nice and Paris").
 */
function amongAlternatives(text: string, start: number, end: number): boolean {
  const before = text.slice(Math.max(0, start - 60), start);
  const after = text.slice(end, end + 60);
  return ALTERNATIVE_BEFORE.test(before) || ALTERNATIVE_AFTER.test(after) || LISTED_BEFORE.test(before) || LISTED_AFTER.test(after);
}

/**
 * True when the response states the tool's result as its answer. A number is compared with the
 * answer's number, exactly for integers: the boxed one, else the one after "answer is"/"Answer:",
 * else the first number written (so "3,000,000 (the calculator said 2148000)" does not use
 * 2148000, and "2,148,000 (census of 2019)" does). A text must appear as whole words in the stated
 * answer's first sentence outside parentheses (the whole text when no answer is stated), and not
 * denied in its clause ("not Paris; it is Lyon" does not use "Paris"). Alternatives offered
 * together are a hedge, not an answer: "2148000 (or maybe 3,000,000)", "Lyon, Nice or Paris",
 * "Lyon/Paris"; so are candidates listed with "and" ("2148000 and 3000000", "Paris and Lyon",
 * "Lyon, Nice and Paris"), while a clause after the result is not a list ("Paris, and it is the
 * capital", "Paris and not Lyon"). Numbers of every script are read as ASCII ones. The kind passes
 * the response as a reader gets it (undisguisedText): "Answer: Lyon <!-- Paris -->" states Lyon.
 */
export function usesResult(response: string, result: string): boolean {
  // Numbers in ASCII first (text/numerals.ts): "٢١٤٨٠٠٠ or ٣٠٠٠٠٠٠" is the hedge it would be in ASCII digits.
  const value = asciiNumerals(resultValue(result));
  if (value === "") return false;
  const part = answerPart(asciiNumerals(response));
  const expected = /^[-−]?[\d.,\s/eE+]+$/.test(value) ? answerNumber(value, "last") : undefined;
  if (expected !== undefined) {
    // "2148000 or 3,000,000": a hedge, whichever comes first.
    if (hedgesNumbers(part.text)) return false;
    const got = answerNumber(part.text, "first");
    // "2148000 and 3000000": the answer listed with another candidate.
    return got !== undefined && sameNumber(got, expected) && !listsOtherNumbers(part.text, got);
  }
  const norm = (t: string) => t.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
  // Where the response states its answer, only that answer counts: the tool's word quoted elsewhere is not it.
  const haystack = norm(part.stated ? statedAnswer(part.text) : response);
  const needle = norm(value);
  const escaped = needle.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  // One pass over the denials and clause ends, in step with the matches: testing each match's
  // prefix with /\bnot\b[^.;:!?,]*$/ was quadratic ("not " 100,000 times and ", Paris" held the scorer).
  const marks = [...haystack.matchAll(NEGATION_OR_CLAUSE_END)];
  let next = 0;
  let denied = false;
  for (const m of haystack.matchAll(new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, "gu"))) {
    for (; next < marks.length && marks[next].index + marks[next][0].length <= m.index; next++) denied = !/^[.;:!?,]$/.test(marks[next][0]);
    if (!denied && !amongAlternatives(haystack, m.index, m.index + m[0].length)) return true;
  }
  return false;
}
