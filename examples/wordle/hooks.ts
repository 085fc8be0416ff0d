/**
 * Wordle as an environment: the policy guesses, the environment answers each guess with its
 * colour pattern, and the game's log goes to the rubric. Code checks grade what code can know
 * (solved, guesses used, valid words); a judge question grades whether the player used the feedback.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
// rubricate is a peer dependency: the types of the rubricate that runs this environment.
import type { CheckFunction, EnvHooks, EnvResponseContext, FinalizeContext } from "rubricate";

/** The allowed guesses (and possible secrets), one a line in words.txt. */
export const WORDS: string[] = readFileSync(join(import.meta.dirname, "words.txt"), "utf8").split("\n").filter(Boolean);
const ALLOWED = new Set(WORDS);
/** Guesses a game allows. */
export const MAX_GUESSES = 6;

/** One guess and what the environment said. */
export interface Guess {
  word: string;
  valid: boolean;
  /** "GY--G": G right letter and place, Y in the word elsewhere, - not in the word (empty when invalid). */
  pattern: string;
}

interface GameState {
  secret: string;
  guesses: Guess[];
  solved: boolean;
}

/** The colour pattern of a guess against the secret, with Wordle's rule for repeated letters. */
export function pattern(guess: string, secret: string): string {
  const out = Array<string>(5).fill("-");
  const left = new Map<string, number>();
  for (let i = 0; i < 5; i++) {
    if (guess[i] === secret[i]) out[i] = "G";
    else left.set(secret[i], (left.get(secret[i]) ?? 0) + 1);
  }
  for (let i = 0; i < 5; i++) {
    if (out[i] === "G") continue;
    const n = left.get(guess[i]) ?? 0;
    if (n > 0) {
      out[i] = "Y";
      left.set(guess[i], n - 1);
    }
  }
  return out.join("");
}

/** The word a message guesses: the last `GUESS: word` in it. */
export function parseGuess(text: string): string | undefined {
  const all = [...text.matchAll(/guess:\s*([A-Za-z]+)/gi)];
  return all.at(-1)?.[1].toLowerCase();
}

/** The game log the rubric reads: one line per guess. */
export function gameLog(guesses: Guess[]): string {
  return guesses.map((g, i) => `${i + 1}. ${g.word} ${g.valid ? g.pattern : "(invalid guess)"}`).join("\n") || "(no guesses)";
}

const state = (sample: Record<string, unknown>) => sample.game as { guesses: Guess[]; solved: boolean } | undefined;

/** Custom checks by the names the rubric uses; this environment's rollouts score with them. */
export const checks: Record<string, CheckFunction> = {
  "wordle-solved": (_text, { sample }) => {
    const g = state(sample);
    return { pass: Boolean(g?.solved), reasoning: g?.solved ? `solved in ${g.guesses.length}` : "not solved" };
  },
  "wordle-turns": (_text, { sample, args }) => {
    const g = state(sample);
    const max = Number(args.max ?? 4);
    const used = g?.guesses.length ?? 0;
    return { pass: Boolean(g?.solved) && used <= max, reasoning: `${used} guess(es); solved within ${max} wanted` };
  },
  "wordle-valid-guesses": (_text, { sample }) => {
    const bad = (state(sample)?.guesses ?? []).filter((x) => !x.valid).map((x) => x.word || "(none)");
    return { pass: bad.length === 0 && (state(sample)?.guesses.length ?? 0) > 0, reasoning: bad.length ? `invalid: ${bad.join(", ")}` : "every guess a valid five-letter word" };
  },
};

const hooks: EnvHooks<GameState> = {
  setup: ({ task }) => ({ secret: String(task.answer).toLowerCase(), guesses: [], solved: false }),

  envResponse: ({ state: game, text }: EnvResponseContext<GameState>) => {
    const word = parseGuess(text) ?? "";
    const valid = /^[a-z]{5}$/.test(word) && ALLOWED.has(word);
    if (!valid) {
      game.guesses.push({ word, valid: false, pattern: "" });
      const why = word === "" ? "I found no `GUESS: <word>` in your message" : `"${word}" is not an allowed five-letter word`;
      if (game.guesses.length >= MAX_GUESSES) return { message: `${why}. No guesses left; the word was ${game.secret}.`, done: true };
      return `${why}. That used a guess. ${MAX_GUESSES - game.guesses.length} left. Reply with GUESS: <word>.`;
    }
    const p = pattern(word, game.secret);
    game.guesses.push({ word, valid: true, pattern: p });
    if (p === "GGGGG") {
      game.solved = true;
      return { message: `${word}: ${p} Solved in ${game.guesses.length}!`, done: true };
    }
    if (game.guesses.length >= MAX_GUESSES) return { message: `${word}: ${p} No guesses left; the word was ${game.secret}.`, done: true };
    return `${word}: ${p} (${MAX_GUESSES - game.guesses.length} left)`;
  },

  finalize: ({ state: game }: FinalizeContext<GameState>) => ({
    game: { guesses: game.guesses, solved: game.solved },
    game_log: gameLog(game.guesses),
  }),

  checks,
};

export default hooks;
