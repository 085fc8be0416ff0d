/**
 * Question-level lint rules: each looks at one criterion's wording and says why a judge (or a
 * second expert) would answer it inconsistently, with a rewrite pattern.
 */

/** How much a finding matters: errors break scoring semantics, warnings hurt agreement, info is advice. */
export type LintSeverity = "error" | "warning" | "info";

/** One lint result for one criterion (or `*` for the rubric as a whole). */
export interface LintFinding {
  criterion: string;
  rule: LintRule;
  severity: LintSeverity;
  message: string;
  suggestion: string;
}

/** Every rule's name, stable: use them in `tags: [lint-ignore:<rule>]` to silence one on purpose. */
export type LintRule =
  | "not-yes-no"
  | "no-question-mark"
  | "multiple-asks"
  | "vague-word"
  | "double-negative"
  | "pitfall-polarity"
  | "reward-polarity"
  | "near-duplicate"
  | "no-examples"
  | "one-sided-examples"
  | "points-dominant"
  | "pitfall-outweighs"
  | "long-question"
  | "conditional-question"
  // Code checks (lint-checks.ts).
  | "question-for-check"
  | "check-input-undeclared"
  | "loose-threshold"
  | "grades-reasoning"
  | "lexical-only-reward"
  | "regex-pitfall-as-written"
  | "sql-one-database"
  | "regex-slow-on-long-text";

/** What a question rule sees. */
export interface QuestionInput {
  id: string;
  question: string;
  points: number;
}

const AUXILIARIES = new Set("does do did is are was were has have had can could would will should shall may might must".split(" "));
const NON_BINARY_OPENERS: [RegExp, string][] = [
  [/^(how)\b/i, "asks how (a degree or manner), not yes/no"],
  [/^(what|which|why|when|where|who|whom|whose)\b/i, "asks for an open answer, not yes/no"],
  [/^(rate|score|grade|evaluate|assess|describe|explain|list|judge|rank|give|provide|summari[sz]e|compare)\b/i, "is an instruction to the judge, not a yes/no question"],
  [/^to what (extent|degree)\b/i, "asks for a degree, not yes/no"],
];
const SCALE = /\b(on a scale|scale of|out of (5|10|100)|\d+\s*(-|–|to)\s*\d+ scale|how (well|much|many|often|good|likely)|to what (extent|degree)|the degree to which|rate\b|score from)/i;

/** Text with quoted phrases and {{variables}} blanked, so their words never trigger a rule. */
export function stripQuoted(question: string): string {
  return question
    .replace(/\{\{[^}]*\}\}/g, " templatevar ")
    .replace(/"[^"]*"|“[^”]*”|‘[^’]*’|`[^`]*`/g, " quotedtext ")
    .replace(/(^|[\s(])'[^']*'(?=[\s,.?!);:]|$)/g, "$1 quotedtext ");
}

/** Lower-case word tokens (apostrophes kept, so "doesn't" stays one token). */
export function tokens(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+(?:['’][a-z]+)?/g) ?? []).map((t) => t.replace("’", "'"));
}

/** Not yes/no: "How well…", "Rate…", "To what extent…", or not opening with an auxiliary verb. */
export function ruleNotYesNo(q: QuestionInput): Omit<LintFinding, "criterion">[] {
  const text = q.question.trim();
  const conditional = /^(if|when|whenever|unless|given that|in case)\b[^,?]*,\s*(\w+)/i.exec(text);
  if (conditional && AUXILIARIES.has(conditional[2].toLowerCase())) {
    return [
      {
        rule: "conditional-question",
        severity: "info",
        message: "a conditional question: the judge must decide the condition and the answer at once, and what a 'no' to the condition means is unclear",
        suggestion: "Make the condition its own criterion (0 points) and ask this question with `when: <that criterion>`, so it is skipped, not answered, when the condition does not hold.",
      },
    ];
  }
  const first = tokens(text)[0] ?? "";
  for (const [re, why] of NON_BINARY_OPENERS) {
    if (re.test(text)) return [notYesNo(`the question ${why}`)];
  }
  if (SCALE.test(stripQuoted(text))) return [notYesNo("the question asks for a degree or a rating; a judge answers degrees inconsistently")];
  if (!AUXILIARIES.has(first)) return [notYesNo(`the question opens with "${first}", not an auxiliary verb (Does, Is, Are, Did, Has, Can…), so it may not have a yes/no answer`)];
  const findings: Omit<LintFinding, "criterion">[] = [];
  if (!text.endsWith("?")) {
    findings.push({ rule: "no-question-mark", severity: "info", message: "the question does not end with '?'", suggestion: "End the question with a question mark so it reads as one yes/no question." });
  }
  return findings;
}

function notYesNo(message: string): Omit<LintFinding, "criterion"> {
  return {
    rule: "not-yes-no",
    severity: "error",
    message,
    suggestion: 'Turn the quality into an observable fact: "How well does it explain X?" → "Does the response state <the specific fact an expert expects about X>?"',
  };
}

/** Verbs that, right after "and"/"or", start a second ask ("…explain X and cite Y"). */
const VERBS = new Set(
  (
    "mention state explain include provide cite give recommend avoid ask tell describe identify suggest offer refer acknowledge warn apologize apologise summarize summarise " +
    "follow contain keep use list name quote define justify address correct admit disclose reveal invent fabricate omit advise urge direct encourage discourage " +
    "repeat restate answer respond refuse decline comply request clarify confirm note flag point propose specify express avoid add remove return produce write " +
    "start end begin conclude close greet thank sign escalate promise blame contradict ignore follow-up link show report output format present " +
    "run compile pass reassure discuss consider recognize recognise emphasize emphasise highlight validate verify check test handle prioritize prioritise outline detail " +
    "assess evaluate reference recommend prescribe diagnose treat compare contrast calculate compute return raise throw log handle"
  ).split(" "),
);
const AMBIGUOUS_NOUNS = new Set("answer use list name quote report output format note point link show return request state end start close address run pass check test detail reference log raise throw compile".split(" "));
/** Words after which an ambiguous word ("answer", "run", "check") reads as a verb: "and answer the question", "and run?". */
const OBJECT_STARTERS = new Set("the a an it them this that these those its their his her any all every each".split(" "));

function isVerbToken(word: string | undefined, following?: string): boolean {
  if (!word) return false;
  if (AUXILIARIES.has(word) || word === "also" || word === "then") return true;
  if (VERBS.has(word) && (!AMBIGUOUS_NOUNS.has(word) || following === undefined || OBJECT_STARTERS.has(following))) return true;
  // Third-person forms: "cites", "explains", "apologizes", "identifies".
  const stem = word.endsWith("ies") ? `${word.slice(0, -3)}y` : word.endsWith("es") && VERBS.has(word.slice(0, -2)) ? word.slice(0, -2) : word.endsWith("s") ? word.slice(0, -1) : "";
  // "tests", "answers", "reports" are plural nouns as often as verbs: the same object test applies.
  return stem !== "" && VERBS.has(stem) && (!AMBIGUOUS_NOUNS.has(stem) || following === undefined || OBJECT_STARTERS.has(following));
}

/** Several asks in one question: "and"/"or" joining two verb clauses, "both … and", lists of three or more. */
export function ruleMultipleAsks(q: QuestionInput): Omit<LintFinding, "criterion">[] {
  const text = stripQuoted(q.question);
  const words = tokens(text);
  const reasons: string[] = [];
  for (let i = 1; i < words.length - 1; i++) {
    const w = words[i];
    if (w !== "and" && w !== "or") continue;
    // "whether it is X or is Y" offers alternatives for one ask.
    if (w === "or" && words.slice(0, i).includes("whether")) continue;
    let at = i + 1;
    // "and it cites", "and the response explains", "or does it…"
    if (words[at] === "it" || words[at] === "they") at += 1;
    else if (words[at] === "the" && words[at + 1] && /^(response|answer|reply|assistant|model|summary|comment|review|code)$/.test(words[at + 1])) at += 2;
    if (isVerbToken(words[at], words[at + 1])) {
      reasons.push(`"${w} ${words.slice(i + 1, i + 3).join(" ")}" starts a second ask`);
      break;
    }
  }
  if (/\bboth\b[^?]*\band\b/i.test(text)) reasons.push('"both … and" asks for two things');
  if (/\band\/or\b/i.test(text)) reasons.push('"and/or" leaves open whether one or both are needed');
  if (/(?:[^,;]+,){2,}[^,;]*\b(and|or)\b/i.test(text) && !/\b(such as|e\.g\.|for example|including|like)\b/i.test(text)) reasons.push("a list of three or more items: each item is its own ask");
  if (/;/.test(text)) reasons.push("a semicolon joins two clauses");
  if (reasons.length === 0) return [];
  return [
    {
      rule: "multiple-asks",
      severity: "warning",
      message: `several asks in one question (${reasons[0]}); a response meeting one half gets an arbitrary answer`,
      suggestion: 'Split into one criterion per ask ("Does it explain X?" and "Does it cite Y?"). If the conjunction is one thing ("black and white"), quote it or tag the criterion `lint-ignore:multiple-asks`.',
    },
  ];
}

const VAGUE = /\b(appropriate(ly)?|good|relevant|adequate(ly)?|reasonabl[ey]|proper(ly)?|sufficient(ly)?|suitabl[ey]|satisfactor(y|ily)|acceptabl[ey]|nice|high[- ]quality|effective(ly)?|enough|comprehensive(ly)?|thorough(ly)?|helpful|clear|decent|significant(ly)?|necessary|concise|brief|detailed|professionally|professional (tone|manner|language)|polite(ly)?|friendly|empathetic(ally)?|engaging|well[- ](written|structured|organi[sz]ed)|coherent|fluent)\b/i;
const STANDARD = /\b(such as|e\.g\.|for example|i\.e\.|namely|defined as|meaning|that is|according to|as listed|as stated|per the|in the (reference|context|policy|guideline|instructions?|rubric)|at least|at most|no more than|fewer than|more than|within)\b|:|\(|\d/i;

/** Vague words ("appropriate", "good", "relevant"…) with no standard that says what counts. */
export function ruleVagueWords(q: QuestionInput): Omit<LintFinding, "criterion">[] {
  const text = stripQuoted(q.question);
  const match = VAGUE.exec(text);
  if (!match || STANDARD.test(text)) return [];
  return [
    {
      rule: "vague-word",
      severity: "warning",
      message: `"${match[0]}" has no standard: two experts (or two judges) will draw the line in different places`,
      suggestion: `Name the standard: replace "${match[0]}" with the observable property you mean, or add one ("…such as X or Y", "…as defined in the reference", "…within 2 sentences").`,
    },
  ];
}

const NEGATORS = new Set(["not", "never", "no", "without", "nor", "neither", "cannot"]);
const NEGATIVE_VERBS = /^(fail|fails|failed|failing|avoid|avoids|avoided|omit|omits|omitted|lack|lacks|lacking|neglect|neglects|refrain|refrains|miss|misses|refuse|refuses|absent|free)$/;
const FAIL = /^(fail|fails|failed|failing)$/;

/** Double negatives: "Does it not fail to…", "Is it not without…", "Does it never avoid…". */
export function ruleDoubleNegative(q: QuestionInput): Omit<LintFinding, "criterion">[] {
  const words = tokens(stripQuoted(q.question));
  const isNeg = (w: string) => NEGATORS.has(w) || w.endsWith("n't");
  for (let i = 0; i < words.length; i++) {
    if (!(isNeg(words[i]) || FAIL.test(words[i]))) continue;
    for (let j = i + 1; j < Math.min(words.length, i + 5); j++) {
      if (isNeg(words[j]) || NEGATIVE_VERBS.test(words[j])) {
        return [
          {
            rule: "double-negative",
            severity: "warning",
            message: `a double negative ("${words.slice(i, j + 1).join(" ")}"): judges flip the answer on these`,
            suggestion: 'State the positive: "Does it not fail to mention X?" → "Does it mention X?"; for a pitfall, ask about the failure itself ("Does it omit X?") with negative points.',
          },
        ];
      }
    }
  }
  return [];
}

const YES_IS_GOOD_PREDICATE = /^(avoids?|refrains?|stays?|remains?|keeps? (away|clear)|abstains?|steers? clear|never|not|does not|doesn't|(is|are) (accurate|correct|safe|appropriate|faithful|grounded|complete|polite|professional|helpful|truthful|consistent|valid)|(accurate|correct|safe|appropriate|faithful|grounded|complete|polite|professional|helpful|truthful|consistent|valid))\b/i;
const YES_IS_GOOD_ANYWHERE = /\b(free of|free from|without (any )?(errors?|mistakes?|hallucinat\w*|fabricat\w*|unsupported|harmful|bias\w*))\b/i;
const YES_IS_BAD = /\b(hallucinat\w*|fabricat\w*|invents?|made[- ]up|makes up|contradicts?|errors?|mistakes?|incorrect|wrong|harmful|dangerous|unsafe|insults?|blames?|leaks?|misleading)\b/i;
const DETECTS = /\b(no|not|without|free of|avoids?|refuses?|declines?|corrects?|flags?|points? out|identif(y|ies)|notes?|detects?|catches|catch|mentions?|warns?|explains?|says?|states?|reports?|asks?)\b/i;

/** A pitfall (negative points) phrased so that "yes" is good; or a reward phrased as a failure. */
export function rulePolarity(q: QuestionInput): Omit<LintFinding, "criterion">[] {
  const text = stripQuoted(q.question).trim();
  const body = text.replace(/^\s*\w+\s+/, ""); // drop the auxiliary
  const predicate = body.replace(/^(the (\w+ )?(response|answer|reply|summary|comment|review|assistant|model|output|query)|the \w+|it|they|this|every \w+|all \w+)\s+/i, "");
  if (q.points < 0 && (YES_IS_GOOD_PREDICATE.test(predicate) || YES_IS_GOOD_ANYWHERE.test(body))) {
    return [
      {
        rule: "pitfall-polarity",
        severity: "error",
        message: `a pitfall (${q.points} points) phrased so that "yes" is good: a response that avoids the failure would lose points`,
        suggestion: 'Ask about the failure itself: "Does it avoid inventing a dose?" → "Does it state a medication dose that the question did not give?" (keep the negative points).',
      },
    ];
  }
  const bad = YES_IS_BAD.exec(body);
  if (q.points > 0 && bad && !DETECTS.test(body.slice(0, bad.index))) {
    return [
      {
        rule: "reward-polarity",
        severity: "warning",
        message: `positive points (${q.points}) on a question about a failure ("${bad[0]}"): "yes" (the failure happened) would earn points`,
        suggestion: "If yes means the response failed, make the points negative (a pitfall); if it is a virtue, rephrase so that yes is the virtue.",
      },
    ];
  }
  return [];
}

/** Very long questions usually hide several asks or a missing definition. */
export function ruleLongQuestion(q: QuestionInput): Omit<LintFinding, "criterion">[] {
  const n = tokens(stripQuoted(q.question)).length;
  if (n <= 45) return [];
  return [{ rule: "long-question", severity: "info", message: `${n} words; long questions usually carry several asks or a definition that belongs in the rubric's context`, suggestion: "Move definitions to the rubric's `context` and keep the question to one sentence." }];
}

/** The question rules in the order they run. */
export const QUESTION_RULES = [ruleNotYesNo, ruleMultipleAsks, ruleVagueWords, ruleDoubleNegative, rulePolarity, ruleLongQuestion];
