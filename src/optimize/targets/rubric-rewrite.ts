import type { YAMLMap } from "yaml";
import { editCriteriaYaml } from "../../rubric/edit-yaml.js";

/**
 * A rubric file's YAML with some criteria's questions replaced, everything else (comments, order,
 * other fields) kept. A criterion that is not in this file (it comes through `extends:`) is a
 * `BAD_INPUT` error naming it. The criterion's `version`, if any, is bumped so cached verdicts
 * of the old wording are not reused under the new one.
 * @example rewriteRubricQuestions(readFileSync("r.yaml", "utf8"), { "cites-source": "Does the response name its source?" })
 */
export function rewriteRubricQuestions(yamlText: string, questions: Record<string, string>, filename = "rubric"): string {
  const rewrite = (item: YAMLMap, id: string) => {
    item.set("question", questions[id]);
    const version = item.get("version");
    if (typeof version === "number") item.set("version", version + 1);
  };
  return editCriteriaYaml(yamlText, Object.keys(questions), rewrite, filename, "; change their question there");
}
