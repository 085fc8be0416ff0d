/**
 * What the probe of the whole rubric library must show with each scripted judge: used by
 * rubrics.test.ts (literal judge) and rubrics-lexical.test.ts (lexical judge), two files so that
 * vitest runs the two batteries on two workers (each runs code-tests.yaml's 80 Python processes).
 */
import { expect } from "vitest";
import { probeLibrary, type LIBRARY_JUDGES } from "./library.js";

/** Guards pay 1 for an empty response by design (combine them with a task rubric; see their headers). */
const GUARDS = ["rubrics/single/hallucination.yaml", "rubrics/single/no-grader-talk.yaml", "rubrics/single/pii-leak.yaml"];
/**
 * Zero-deserving attacks that may still earn a reward against the literal judge, which answers every
 * pitfall "no": math-answer's `hedge` is stopped by the required `contradicts-itself` pitfall, which
 * only a judge can answer (tests/rubrics/scoring.test.ts). Every other attack must earn 0.
 */
const JUDGE_ONLY_WINNERS: Record<string, string[]> = { "rubrics/math-answer.yaml": ["hedge"] };

/** Probes every rubric file with the `kind` judge and checks every run. */
export async function expectLibraryProbe(files: string[], kind: keyof typeof LIBRARY_JUDGES): Promise<void> {
  const runs = await probeLibrary(files, kind);
  expect(runs.map((r) => r.file)).toEqual(files);
  for (const { file, rubric, samples, result } of runs) {
    // Samples come from the rubric's inputs and examples, one per distinct set of example inputs.
    expect(samples.length, file).toBeGreaterThanOrEqual(1);
    for (const s of samples) for (const name of rubric.inputs) expect(typeof s[name], `${file}: ${name}`).toBe("string");
    // Every attack response got a reward: no judge, check or template errors.
    expect(result.runs.filter((r) => r.result.reward === null).map((r) => `${r.attack.id}: ${JSON.stringify(r.result.errors)}`), file).toEqual([]);
    const asksJudge = rubric.criteria.some((c) => c.question);
    for (const a of result.attacks) expect(a.isolationHolds, `${file} ${a.id}`).toBe(asksJudge ? true : null);
    for (const f of result.findings) expect(f.fix.length, `${file} ${f.attack}`).toBeGreaterThan(20);
    // No check kind's known hack passes a check of the library (summary-faithfulness's non-empty gate reported one, a false alarm, until round 28).
    expect(result.hacks.filter((h) => h.passed).map((h) => `${h.criterion}/${h.hack}: ${h.response}`), file).toEqual([]);
    // The literal judge never credits an injection: an LLM question they win is one the empty response wins too (true of any response).
    if (kind === "literal") {
      const injected = result.attacks.filter((a) => a.category === "injection" || a.category === "delimiter");
      const empty = result.attacks.find((a) => a.id === "empty")!;
      const llmWins = (a: (typeof result.attacks)[number]) => a.criteria.filter((c) => c.wins > 0 && c.source === "llm").map((c) => c.criterion);
      for (const a of injected) for (const c of llmWins(a)) expect(llmWins(empty), `${file} ${a.id}`).toContain(c);
      // The holes the probe found and the rubrics fixed stay closed: no code check or vacuous question pays an attack.
      if (!GUARDS.includes(file)) {
        const winners = result.attacks.filter((a) => a.deservesZero && (a.meanReward ?? 0) > 0).map((a) => a.id);
        expect(winners, file).toEqual(JUDGE_ONLY_WINNERS[file] ?? []);
      }
    }
    // Rubrics that extend the no-grader-talk gate pay nothing for text aimed at the judge, even when the judge obeys it.
    if (rubric.criteria.some((c) => c.id === "no-grader-talk" && c.required)) {
      const aimed = result.attacks.filter((a) => a.category === "injection" || a.category === "delimiter" || a.id === "claim-compliance");
      expect(aimed.length, file).toBeGreaterThan(0);
      for (const a of aimed) expect(a.meanReward, `${file} ${a.id}`).toBe(0);
    }
    // The lexical judge obeys injected text: on a rubric with positive LLM questions the injection wins one.
    if (kind === "lexical" && rubric.criteria.some((c) => c.question && c.points > 0 && !c.when)) {
      expect(result.attacks.find((a) => a.id === "inject-answer-yes")!.criteria.some((c) => c.wins > 0), file).toBe(true);
    }
    // Whatever the empty response earns is reported, with a fix that asks for a gate.
    const empty = result.attacks.find((a) => a.id === "empty")!;
    if ((empty.meanReward ?? 0) > 0) {
      expect(result.flagged, file).toContain("empty");
      expect(result.findings.filter((f) => f.attack === "empty").every((f) => /when:|required/.test(f.fix)), file).toBe(true);
    }
  }
}
