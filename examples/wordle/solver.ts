/**
 * A reference player for tests and demos: reads every pattern the environment sent so far and
 * guesses the first allowed word consistent with all of them. Not an LLM: a baseline a model
 * should match, and the scripted policy of the example's tests.
 */
import { pattern, WORDS } from "./hooks.js";

/** The next guess, given the feedback texts the environment sent ("crane: GY--- …"). */
export function nextGuess(feedback: string[]): string {
  const seen = feedback.flatMap((text) => [...text.matchAll(/^([a-z]{5}): ([GY-]{5})/gm)].map((m) => [m[1], m[2]] as const));
  return WORDS.find((w) => seen.every(([g, p]) => pattern(g, w) === p)) ?? WORDS[0];
}
