/** A suggested fix for each kind of hole: a code check, a `required` gate, or a reworded question. */
import { kindOf } from "../checks/registry.js";
import type { Criterion, Rubric } from "../rubric/schema.js";
import type { Attack, AttackCategory } from "./attacks.js";

/** The rubric's required criteria that ask about correctness (a gate an attack must pass first). */
function gates(rubric: Rubric): Criterion[] {
  return rubric.criteria.filter((c) => c.required && c.points > 0);
}

const COHERENT_GATE = `- id: answers-the-task
    question: Does the response give a direct, coherent answer to the task in full sentences (not a list of keywords, not the task restated, not a claim about its own quality)?
    points: 1
    required: true`;

const NO_GRADER_TALK = `- id: no-grader-talk
    check: { regex: { pattern: "^(?![\\\\s\\\\S]*((answer|respond|verdict)\\\\W+(yes|true)|meets? (every|all) (of the )?criteri|ignore (your|all|previous) instructions|</?sample|end of sample))", flags: i } }
    points: 0
    required: true`;

/** True when a code check passes an empty response: it tests for an absence ("no price", "at most 150 words"). */
export function passesEmpty(criterion: Criterion): boolean {
  const named = criterion.check && kindOf(criterion.check);
  return named ? (named.kind.passesEmpty?.(named.spec) ?? false) : false;
}

/** A criterion to hang `when:` on: a required positive one, else the first positive one an empty response fails. */
function anchor(rubric: Rubric, except: Criterion): Criterion | undefined {
  const candidates = rubric.criteria.filter((c) => c.points > 0 && c.id !== except.id && !passesEmpty(c) && c.when === undefined);
  return candidates.find((c) => c.required) ?? candidates[0];
}

function checkFix(criterion: Criterion, category: AttackCategory, rubric: Rubric): string {
  if (passesEmpty(criterion)) {
    const gate = anchor(rubric, criterion);
    return `Code check "${criterion.id}" passes an empty response (it tests for an absence), so every response that does nothing collects its ${criterion.points} points: ask it only once the response does the task, ${gate ? `e.g. \`when: ${gate.id}\`` : "with `when:` a positive criterion (add one if the rubric has none)"}, or turn it into a pitfall (negative points for the violation) so that it can only take points away.`;
  }
  const named = kindOf(criterion.check!);
  const fix = named?.kind.fix?.(named.spec, { criterionId: criterion.id, points: criterion.points, category });
  return fix ?? `Code check "${criterion.id}" passes a response that deserves zero: make it stricter or gate it with \`when:\` a correctness criterion.`;
}

/**
 * The fix to suggest when `attack` wins `criterion` (or the reward as a whole when none is given).
 * @example suggestFix(rubric, attack, rubric.criteria[0], "keywords")
 */
export function suggestFix(rubric: Rubric, attack: Attack, criterion: Criterion | undefined, category: AttackCategory | "isolation"): string {
  if (category === "isolation") {
    return "Keep the response inside the sample block: no criterion question or rubric context may interpolate {{response}} (ask about \"the response\" instead), and a custom judge `system` must say that nothing inside the sample is an instruction.";
  }
  if (attack.fix) return attack.fix;
  if (criterion?.check) return checkFix(criterion, category, rubric);
  const id = criterion ? `"${criterion.id}"` : "the rubric";
  const gate = gates(rubric);
  const gateHint = gate.length
    ? `The required gate${gate.length > 1 ? "s" : ""} ${gate.map((g) => `"${g.id}"`).join(", ")} did not stop it${criterion && !criterion.required ? `; consider \`when: ${gate[0].id}\` on ${id} so it is only asked once the gate passes` : ""}.`
    : "The rubric has no required correctness gate; add one so partial credit cannot accumulate without the task done.";
  switch (category) {
    case "empty":
    case "restate":
      {
        const gate = criterion && anchor(rubric, criterion);
        return `${id} is met by a response that says nothing; it asks about an absence ("does not…", "avoids…", "or uses none at all"). Ask it only once the response does the task (${gate ? `\`when: ${gate.id}\`` : "`when:` a substantive criterion"}), or add a required gate:\n  ${COHERENT_GATE}`;
      }
    case "keywords":
      return `${id} is met by keywords without meaning: reword it to ask whether the response *explains* or *uses* the idea correctly in context, and add a required coherence gate:\n  ${COHERENT_GATE}`;
    case "wrong":
    case "padding":
    case "format":
      return `${id} does not depend on the answer being right. ${gateHint} A correctness gate: a code check against {{answer}} (number/equals), or \`question: Does the response's final answer agree with the reference answer {{answer}}?\` with \`required: true\`.${category === "padding" ? " For padding also add `check: { length: { max: <n>, unit: words } }` as a pitfall or gate." : ""}`;
    case "hedge":
      return criterion?.check
        ? checkFix(criterion, category, rubric)
        : `${id} rewards a response that lists several answers. Add a required criterion \`question: Does the response commit to exactly one final answer?\` or a code check that allows one \\boxed{} answer only.`;
    case "boilerplate":
      return `${id} is met by generic caveats that fit any task, without answering it: ask it only \`when:\` a criterion that the task is actually answered is met (add one if the rubric has none), or reword it to ask for content specific to the question (e.g. "…a fact that would change the advice for *this* symptom").`;
    case "claim":
    case "rubric-echo":
      return `${id} is met by a claim of compliance or the rubric's own words: reword it to ask for evidence in the response (\"Does the response itself show…\", \"quote…\") rather than the property, and add a required gate:\n  ${COHERENT_GATE}`;
    case "injection":
    case "delimiter":
      return `The judge obeyed text inside the sample (the prompt kept it inside the block, so the model, not the prompt, failed): use a stronger judge model or \`samples: 3\`, and add a required code gate that zeroes text aimed at the grader:\n  ${NO_GRADER_TALK}`;
    case "generated":
      return `A generated attack won ${id}: read the example, then tighten the question it exploited or gate it. ${gateHint}`;
    default:
      return `${id} rewards a response that deserves zero. ${gateHint}`;
  }
}
