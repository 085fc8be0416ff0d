/**
 * A scripted teacher: answers "What is the capital of X?" in six styles, one per call for the
 * same prompt, in turn: a good sentence, a bare name, a hedge with the wrong city, a rambling
 * correct answer, the good sentence again (an exact duplicate), and a confident wrong answer.
 */
import { createScriptedProvider } from "rubricate/testing";
import type { Provider } from "rubricate/judge";

const CAPITALS: Record<string, string> = { France: "Paris", Germany: "Berlin", Italy: "Rome", Spain: "Madrid", Japan: "Tokyo", "South Korea": "Seoul", Kenya: "Nairobi", Egypt: "Cairo" };
const WRONG: Record<string, string> = { France: "Lyon", Germany: "Munich", Italy: "Milan", Spain: "Barcelona", Japan: "Osaka", "South Korea": "Busan", Kenya: "Mombasa", Egypt: "Alexandria" };

/** The teacher and how many calls it answered. */
export function scriptedTeacher(): { provider: Provider; calls: () => number } {
  const seen = new Map<string, number>();
  let calls = 0;
  const provider = createScriptedProvider((request) => {
    calls++;
    const question = String(request.messages.at(-1)?.content ?? "");
    const country = /capital of (.+)\?/.exec(question)?.[1] ?? "?";
    const n = seen.get(country) ?? 0;
    seen.set(country, n + 1);
    const right = CAPITALS[country] ?? "?";
    const wrong = WRONG[country] ?? "?";
    return [
      `The capital of ${country} is ${right}.`,
      `${right}.`,
      `I'm not sure, maybe ${wrong}?`,
      `Well, ${country} has a long and storied history, and many cities have mattered over the centuries, but if you are asking about the seat of government today, the capital of ${country} is ${right}.`,
      `The capital of ${country} is ${right}.`,
      `The capital of ${country} is ${wrong}.`,
    ][n % 6];
  });
  return { provider, calls: () => calls };
}
