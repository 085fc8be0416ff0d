import type { Command } from "commander";
import { isRubricateError } from "../../errors.js";
import { loadJudgeConfig } from "../../judge/load.js";
import { loadRubricSync } from "../../rubric/load.js";
import { EXIT } from "../run.js";

/** `rubricate validate <files...>`: checks rubric (and judge) files; exit 1 with file:line:col messages. */
export function register(program: Command): void {
  program
    .command("validate")
    .description("Check rubric files (and judge files with --judge) and report every problem as file:line:col")
    .argument("<files...>", "rubric YAML files")
    .option("--judge", "the files are judge configurations, not rubrics")
    .option("-q, --quiet", "print only problems")
    .action((files: string[], options: { judge?: boolean; quiet?: boolean }) => {
      let failed = 0;
      for (const file of files) {
        try {
          if (options.judge) loadJudgeConfig(file);
          else {
            const rubric = loadRubricSync(file);
            if (!options.quiet) process.stdout.write(`ok ${file} (${rubric.id}: ${rubric.criteria.length} criteria)\n`);
            continue;
          }
          if (!options.quiet) process.stdout.write(`ok ${file}\n`);
        } catch (e) {
          failed++;
          const message = isRubricateError(e) ? `${e.message} [${e.code}]` : String(e);
          process.stderr.write(`${message}\n`);
        }
      }
      process.exitCode = failed > 0 ? EXIT.failure : EXIT.ok;
    });
}
