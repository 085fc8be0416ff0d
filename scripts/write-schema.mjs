// Writes schema/rubric.schema.json from the built package, so the published schema always matches the zod schema.
import { mkdirSync, writeFileSync } from "node:fs";
import { rubricJsonSchema } from "../dist/rubric/index.js";

mkdirSync(new URL("../schema/", import.meta.url), { recursive: true });
writeFileSync(new URL("../schema/rubric.schema.json", import.meta.url), `${JSON.stringify(rubricJsonSchema(), null, 2)}\n`);
