import type { ProposalFailure } from "./types.js";

/** A parsed reflection output: the new text, or why it was refused. */
export type ParsedProposal =
  | { ok: true; text: string }
  | { ok: false; reason: Exclude<ProposalFailure, "reflect_error" | "invalid">; message: string };

const FENCE = /^[ \t]*```/;

/**
 * Takes the text from the first ``` fence to the last one, as the reference does, so a proposal
 * holding a fenced example of its own (a JSON sample) arrives whole. Refuses output
 * with no fence (`unfenced`), an unclosed fence (`truncated`), an unclosed `<think>` or a
 * `<think>` inside the block (`reasoning`), or an empty block (`empty`).
 * @example
 * parseProposal("Here it is:\n```\nBe brief.\n```") // { ok: true, text: "Be brief." }
 */
export function parseProposal(raw: string): ParsedProposal {
  const lastOpen = raw.lastIndexOf("<think>");
  if (lastOpen !== -1 && raw.indexOf("</think>", lastOpen) === -1) {
    return { ok: false, reason: "reasoning", message: "the output ends inside a <think> block" };
  }
  const thinks = [...raw.matchAll(/<think>[\s\S]*?<\/think>/g)].map((m) => [m.index, m.index + m[0].length]);
  const lines = raw.split("\n");
  const fences: number[] = [];
  let offset = 0;
  lines.forEach((line, i) => {
    const inThink = thinks.some(([a, b]) => offset >= a && offset < b);
    if (!inThink && FENCE.test(line)) fences.push(i);
    offset += line.length + 1;
  });
  if (fences.length === 0) return { ok: false, reason: "unfenced", message: "no ``` fenced block in the output" };
  if (fences.length % 2 === 1) {
    return { ok: false, reason: "truncated", message: "the last ``` fence is never closed (output cut off?)" };
  }
  const open = fences[0];
  const close = fences[fences.length - 1];
  const text = lines.slice(open + 1, close).join("\n").replace(/\r$/gm, "").trim();
  if (/<\/?think>/.test(text)) return { ok: false, reason: "reasoning", message: "the fenced block holds <think> reasoning" };
  if (text === "") return { ok: false, reason: "empty", message: "the fenced block is empty" };
  return { ok: true, text };
}

/** Length of the longest common substring of `a` and `b` (O(|a|·|b|) time, O(|b|) memory). */
export function longestCommonSubstring(a: string, b: string): number {
  if (a.length === 0 || b.length === 0) return 0;
  let prev = new Uint32Array(b.length + 1);
  let cur = new Uint32Array(b.length + 1);
  let best = 0;
  for (let i = 1; i <= a.length; i++) {
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      if (ca === b.charCodeAt(j - 1)) {
        cur[j] = prev[j - 1] + 1;
        if (cur[j] > best) best = cur[j];
      } else cur[j] = 0;
    }
    [prev, cur] = [cur, prev];
  }
  return best;
}

/**
 * True when `text` copies at least `minChars` consecutive characters of `input` that `before`
 * (the parent's text) did not already contain — i.e. the rewrite pasted a training example in.
 */
export function copiesInput(text: string, input: string, before: string, minChars: number): boolean {
  if (longestCommonSubstring(text, input) < minChars) return false;
  return longestCommonSubstring(before, input) < minChars;
}

/**
 * How many reflective proposals a budget surely pays for, even if every one is accepted:
 * each costs two minibatch evaluations, plus a full valset evaluation when accepted; the seed's
 * valset evaluation comes first.
 */
export function guaranteedProposals(budget: number, valSize: number, minibatchSize: number): number {
  const perProposal = 2 * minibatchSize + valSize;
  return Math.max(0, Math.floor((budget - valSize) / perProposal));
}

/** The warning to show before a run whose budget pays for fewer than `min` proposals, or undefined. */
export function budgetWarning(budget: number, valSize: number, minibatchSize: number, min = 5): string | undefined {
  const sure = guaranteedProposals(budget, valSize, minibatchSize);
  if (sure >= min) return undefined;
  const most = Math.max(0, Math.floor((budget - valSize) / (2 * minibatchSize)));
  return (
    `budget of ${budget} metric calls pays for only ${sure} accepted proposals ` +
    `(at most ${most} if none is accepted) with a valset of ${valSize} and minibatches of ${minibatchSize}; ` +
    `GEPA usually needs more — raise the budget or shrink the valset`
  );
}
