import type { Command } from "commander";
import { isRubricateError } from "../../errors.js";
import { loadRubricSync } from "../../rubric/load.js";
import { lintFails, lintRubric, summarizeFindings, type LintFinding } from "../../rubric/lint.js";
import { EXIT } from "../run.js";

interface LintCliOptions {
  strict?: boolean;
  json?: boolean;
  quiet?: boolean;
}

/** `rubricate lint <rubric...> [--strict] [--json]`: question and points lints; exit 1 on errors (and warnings with --strict). */
export function register(program: Command): void {
  program
    .command("lint")
    .description("Lint rubric questions (yes/no, one ask, standards for vague words, polarity, duplicates, examples, points)")
    .argument("<rubrics...>", "rubric YAML files")
    .option("--strict", "fail on warnings as well as errors (for CI)")
    .option("--json", "print one JSON object per file: { file, findings, counts } (or { file, error })")
    .option("-q, --quiet", "print only warnings and errors")
    .addHelpText("after", "\nSilence one rule on one criterion on purpose with `tags: [lint-ignore:<rule>]`.\nExit codes: 0 clean, 1 errors (or warnings with --strict, or an invalid file).")
    .action((files: string[], options: LintCliOptions) => {
      let failed = false;
      for (const file of files) {
        let findings: LintFinding[];
        try {
          findings = lintRubric(loadRubricSync(file));
        } catch (e) {
          failed = true;
          const message = isRubricateError(e) ? `${e.message} [${e.code}]` : String(e);
          if (options.json) process.stdout.write(`${JSON.stringify({ file, error: message })}\n`);
          else process.stderr.write(`${message}\n`);
          continue;
        }
        if (lintFails(findings, options.strict)) failed = true;
        if (options.json) {
          process.stdout.write(`${JSON.stringify({ file, findings, counts: summarizeFindings(findings) })}\n`);
          continue;
        }
        printText(file, findings, options.quiet ?? false);
      }
      process.exitCode = failed ? EXIT.failure : EXIT.ok;
    });
}

function printText(file: string, findings: LintFinding[], quiet: boolean): void {
  const shown = quiet ? findings.filter((f) => f.severity !== "info") : findings;
  for (const f of shown) {
    process.stdout.write(`${file}: ${f.criterion}: ${f.severity} [${f.rule}] ${f.message}\n    fix: ${f.suggestion}\n`);
  }
  const counts = summarizeFindings(findings);
  if (!quiet || counts.error + counts.warning > 0) {
    process.stdout.write(`${file}: ${counts.error} error(s), ${counts.warning} warning(s), ${counts.info} info\n`);
  }
}
