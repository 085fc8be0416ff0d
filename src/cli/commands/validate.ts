import type { Command } from "commander";
import { isRubricateError } from "../../errors.js";
import { BUILTIN_CHECKS } from "../../checks/custom.js";
import { assertRubricJudgeKeyDestination, judgeSource, loadJudgeConfig } from "../../judge/load.js";
import type { Rubric } from "../../rubric/schema.js";
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
            for (const warning of rubricWarnings(rubric)) process.stderr.write(`warning: ${file}: ${warning}\n`);
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

/**
 * What a valid rubric may still do that its user should know: name a judge file (a rubric can
 * then choose where judge calls, and perhaps an API key, go), or use a custom check that is not
 * registered (only code can register one; the CLI knows the built-in ones).
 */
export function rubricWarnings(rubric: Rubric): string[] {
  const warnings: string[] = [];
  if (rubric.judge) {
    const source = judgeSource(rubric.judge);
    if (!source.packaged) {
      let why = "";
      try {
        if (source.path) assertRubricJudgeKeyDestination(loadJudgeConfig(rubric.judge), rubric.judge);
      } catch (e) {
        why = ` (${isRubricateError(e) ? e.message : String(e)})`;
      }
      warnings.push(`names the judge file "${rubric.judge}", not a packaged judge: a rubric's judge may send your API key only to the provider's own host or loopback; choose judges yourself with --judge${why}`);
    }
  }
  for (const c of rubric.criteria) {
    const custom = c.check?.custom;
    if (typeof custom !== "string") continue;
    if (!Object.hasOwn(BUILTIN_CHECKS, custom)) {
      warnings.push(`criterion "${c.id}" uses custom check "${custom}", which is not registered (not a built-in check): every sample will have an UNKNOWN_CHECK error unless the code that scores passes it (score(…, { checks }), an environment's hooks.checks, or --checks <file>)`);
    }
  }
  return warnings;
}
