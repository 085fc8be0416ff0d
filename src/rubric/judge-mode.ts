import type { Criterion, Rubric } from "./schema.js";

/** Whether a criterion gets a call of its own: its `judge_mode`, else the rubric's (`auto`: pitfalls and required criteria). */
export function asksAlone(criterion: Pick<Criterion, "judge_mode" | "points" | "required">, rubricMode: Rubric["judge_mode"]): boolean {
  const mode = criterion.judge_mode ?? rubricMode;
  return mode === "single" || (mode === "auto" && (criterion.points < 0 || criterion.required));
}
