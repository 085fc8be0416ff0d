import { isMap, isSeq, parseDocument, type YAMLMap } from "yaml";
import { RubricateError } from "../errors.js";

/**
 * A rubric file's YAML with `edit` applied to the named criteria, everything else (comments,
 * order, other fields) kept. A criterion the file does not define itself (it comes through
 * `extends:`) is a `BAD_INPUT` error naming it, followed by `hint`.
 * @example editCriteriaYaml(text, ["cites-source"], (item) => item.set("threshold", 0.6))
 */
export function editCriteriaYaml(yamlText: string, ids: Iterable<string>, edit: (item: YAMLMap, id: string) => void, filename = "rubric", hint = ""): string {
  const doc = parseDocument(yamlText);
  if (doc.errors.length > 0) throw new RubricateError("YAML_SYNTAX", `${filename}: ${doc.errors[0].message}`);
  const criteria = isMap(doc.contents) ? doc.contents.get("criteria", true) : undefined;
  if (!isSeq(criteria)) throw new RubricateError("BAD_INPUT", `${filename} has no criteria list`);
  const left = new Set(ids);
  for (const item of criteria.items) {
    if (!isMap(item)) continue;
    const id = String(item.get("id"));
    if (!left.delete(id)) continue;
    edit(item, id);
  }
  if (left.size > 0) throw new RubricateError("BAD_INPUT", `${filename} does not itself define criteria ${[...left].join(", ")} (extended from another file?)${hint}`);
  return doc.toString({ lineWidth: 0 });
}
