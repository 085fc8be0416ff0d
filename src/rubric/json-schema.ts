import * as z from "zod";
import { RubricSchema } from "./schema.js";

/**
 * The JSON Schema of rubric files, generated from the zod schema (the single source of truth).
 * Editors use it through `# yaml-language-server: $schema=…/schema/rubric.schema.json`.
 * @example writeFileSync("rubric.schema.json", JSON.stringify(rubricJsonSchema(), null, 2))
 */
export function rubricJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(RubricSchema, { io: "input", target: "draft-7" }) as Record<string, unknown>;
  // zod refinements do not reach JSON Schema: say "exactly one of question or check" here, so editors flag both and neither.
  const criterion = (schema.properties as Record<string, { items?: Record<string, unknown> }> | undefined)?.criteria?.items;
  if (criterion) criterion.oneOf = [{ required: ["question"] }, { required: ["check"] }];
  return editorSchema(schema, { file: "rubric.schema.json", title: "rubricate rubric", description: "A rubric: binary judge questions and code checks about a sample, turned into a reward." });
}

/** A draft-7 schema zod generated, under the `$id`, title and description editors show for one of our file kinds. */
export function editorSchema(schema: Record<string, unknown>, about: { file: string; title: string; description: string }): Record<string, unknown> {
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    $id: `https://rubricate.dev/schema/${about.file}`,
    title: about.title,
    description: about.description,
    ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== "$schema")),
  };
}
