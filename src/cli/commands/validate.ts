import type { Command } from "commander";
import { isRubricateError } from "../../errors.js";
import { BUILTIN_CHECKS } from "../../checks/custom.js";
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { parseYamlSource } from "../../config/yaml-source.js";
import { assertJudgeFileKeyDestinations, judgeConfigsOf, judgeSource, readJudgeFile } from "../../judge/load.js";
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
          if (options.judge) {
            const summary = existingFileSummary(file);
            if (!options.quiet) process.stdout.write(`ok ${file}${summary}\n`);
          } else {
            const rubric = loadRubricSync(file);
            const warnings = rubricWarnings(rubric); // throws when the judge file it names is broken
            if (!options.quiet) process.stdout.write(`ok ${file} (${rubric.id}: ${rubric.criteria.length} criteria)\n`);
            for (const warning of warnings) process.stderr.write(`warning: ${file}: ${warning}\n`);
          }
        } catch (e) {
          failed++;
          const message = isRubricateError(e) ? `${e.message} [${e.code}]` : String(e);
          process.stderr.write(`${message}\n${otherKindHint(file, options.judge === true)}`);
        }
      }
      process.exitCode = failed > 0 ? EXIT.failure : EXIT.ok;
    });
}

/** A line for a file of the other kind (a judge file checked as a rubric, or a rubric with --judge), else "". */
function otherKindHint(file: string, judge: boolean): string {
  let keys: string[];
  try {
    const data = parseYamlSource(readFileSync(file, "utf8"), { filename: file }).data;
    keys = data !== null && typeof data === "object" && !Array.isArray(data) ? Object.keys(data) : [];
  } catch {
    return "";
  }
  if (!judge && !keys.includes("criteria") && (keys.includes("provider") || keys.includes("panel"))) return `${file}: this looks like a judge file: check it with \`rubricate validate --judge ${file}\`\n`;
  if (judge && keys.includes("criteria") && !keys.includes("provider")) return `${file}: this looks like a rubric: check it without --judge\n`;
  return "";
}

/** Loads a judge file as what it is, a judge or a panel (every member file too); " (panel of n: …)" for a panel. */
function existingFileSummary(file: string): string {
  const panel = readJudgeFile(file).kind === "panel";
  const members = judgeConfigsOf(file);
  return panel ? ` (panel of ${members.length}: ${members.map((m) => m.ref).join(", ")})` : "";
}

/**
 * What a valid rubric may still do that its user should know: name a judge file (a rubric can
 * then choose where judge calls, and perhaps an API key, go), or use a custom check that is not
 * registered (only code can register one; the CLI knows the built-in ones). Throws when the judge
 * file it names exists but does not load (a panel: any member).
 */
export function rubricWarnings(rubric: Rubric): string[] {
  const warnings: string[] = [];
  if (rubric.judge) {
    // Resolved where scoring resolves it: beside the rubric file.
    const baseDir = rubric.source ? dirname(rubric.source) : process.cwd();
    const source = judgeSource(rubric.judge, baseDir);
    if (!source.packaged) {
      let why = "";
      if (source.path) judgeConfigsOf(rubric.judge, baseDir); // a judge file (or panel member) that does not load fails validation
      try {
        if (source.path) assertJudgeFileKeyDestinations(rubric.judge, baseDir);
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
