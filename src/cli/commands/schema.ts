import type { Command } from "commander";
import { rubricJsonSchema } from "../../rubric/json-schema.js";

/** `rubricate schema`: prints the JSON Schema of rubric files. */
export function register(program: Command): void {
  program
    .command("schema")
    .description("Print the JSON Schema of rubric files (for editors and other validators)")
    .action(() => {
      process.stdout.write(`${JSON.stringify(rubricJsonSchema(), null, 2)}\n`);
    });
}
