import { isMap, isSeq, parseDocument } from "yaml";
import { RubricateError } from "../../errors.js";

/**
 * A rubric file's YAML with some criteria's questions replaced, everything else (comments, order,
 * other fields) kept. A criterion that is not in this file (it comes through `extends:`) is a
 * `BAD_INPUT` error naming it. The criterion's `version`, if any, is bumped so cached verdicts
 * of the old wording are not reused under the new one.
 * @example rewriteRubricQuestions(readFileSync("r.yaml", "utf8"), { "cites-source": "Does the response name its source?" })
 */
export function rewriteRubricQuestions(yamlText: string, questions: Record<string, string>, filename = "rubric"): string {
  const doc = parseDocument(yamlText, { keepSourceTokens: false });
  if (doc.errors.length > 0) throw new RubricateError("YAML_SYNTAX", `${filename}: ${doc.errors[0].message}`);
  const criteria = isMap(doc.contents) ? doc.contents.get("criteria", true) : undefined;
  if (!isSeq(criteria)) throw new RubricateError("BAD_INPUT", `${filename} has no criteria list to rewrite`);
  const left = new Set(Object.keys(questions));
  for (const item of criteria.items) {
    if (!isMap(item)) continue;
    const id = String(item.get("id"));
    if (!left.has(id)) continue;
    item.set("question", questions[id]);
    const version = item.get("version");
    if (typeof version === "number") item.set("version", version + 1);
    left.delete(id);
  }
  if (left.size > 0) {
    throw new RubricateError("BAD_INPUT", `${filename} does not itself define criteria ${[...left].join(", ")} (extended from another file?); change their question there`);
  }
  return doc.toString({ lineWidth: 0 });
}
