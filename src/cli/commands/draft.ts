import { readFileSync } from "node:fs";
import type { Command } from "commander";
import pLimit from "p-limit";
import { isRubricateError, RubricateError } from "../../errors.js";
import { jsonLineValue } from "../../config/jsonl.js";
import { isRecord } from "../../text/json.js";
import { providerFor } from "../../judge/create.js";
import { loadJudgeConfig } from "../../judge/load.js";
import { draftRubric, type DraftInput, type DraftOptions, type DraftResponse } from "../../draft/draft.js";
import { draftSampleCriteria } from "../../draft/samples.js";
import { loadRubricSync } from "../../rubric/load.js";
import { existingFile, JsonlWriter, readJsonl, refuseUnwritableOutputs, writeOutputFile } from "../io.js";
import { EXIT, positiveInt } from "../run.js";
import { concurrencyOption, judgeOption, outputOption } from "../options.js";

interface DraftCliOptions {
  judge: string;
  model?: string;
  task?: string;
  notes?: string;
  reference?: string;
  good?: string[];
  bad?: string[];
  examples?: string;
  id?: string;
  description?: string;
  inputs?: string;
  output?: string;
  lenient?: boolean;
  perSample?: string;
  base?: string;
  concurrency?: number;
}

/** `rubricate draft`: a model drafts a rubric (or per-row instance criteria) from an expert's material. */
export function register(program: Command): void {
  program
    .command("draft")
    .description("Draft a rubric from notes, a reference answer and labelled good/bad responses (validated and linted; repaired once, else rejected)")
    .addOption(judgeOption("judge id or file whose provider and model draft the rubric (e.g. openai-large)").makeOptionMandatory())
    .option("-m, --model <model>", "use this model instead of the judge file's")
    .option("--task <file>", "text file: the prompt the graded responses answer")
    .option("--notes <file>", "text file: the expert's notes (what matters, common mistakes)")
    .option("--reference <file>", "text file: a reference answer")
    .option("--good <files...>", "text files: good responses")
    .option("--bad <files...>", "text files: bad responses")
    .option("--examples <jsonl>", 'labelled responses, one per line: {"response", "label": "good"|"bad", "why"}')
    .option("--id <id>", "the rubric id")
    .option("--description <text>", "the rubric description")
    .option("--inputs <names>", "comma-separated rubric inputs (default prompt,response)")
    .addOption(outputOption("write the YAML (or JSONL with --per-sample) here instead of stdout"))
    .option("--lenient", "accept a draft whose questions only have lint warnings (errors still reject)")
    .option("--per-sample <jsonl>", "draft instance criteria for every row of this dataset; writes each row with a `criteria` field")
    .option("--base <rubric>", "with --per-sample: the rubric the rows will be scored with (its criterion ids are kept unique)")
    .addOption(concurrencyOption("with --per-sample: rows drafted at once (default 4)"))
    .addHelpText(
      "after",
      "\nExamples:\n  rubricate draft -j openai-large --task task.txt --notes notes.md --examples labelled.jsonl -o rubrics/my-task.yaml\n  rubricate draft -j openai-large --per-sample data.jsonl --base rubrics/patient-medical-answer.yaml -o data.with-criteria.jsonl",
    )
    .action(async (options: DraftCliOptions) => {
      refuseUnwritableOutputs(
        { "-o": options.output },
        { "--task": options.task, "--notes": options.notes, "--reference": options.reference, "--good": options.good, "--bad": options.bad, "--examples": options.examples, "--per-sample": options.perSample, "--base": options.base, "--judge": existingFile(options.judge) },
      );
      const config = loadJudgeConfig(options.judge);
      const draftOptions: DraftOptions = {
        provider: providerFor(config),
        model: options.model ?? config.model,
        accept: options.lenient ? "errors" : "clean",
        timeoutMs: config.timeout_ms,
      };
      const base = baseInput(options);
      if (options.perSample) {
        process.exitCode = await perSample(options, draftOptions, base);
        return;
      }
      const result = await draftRubric(base, draftOptions);
      if (options.output) writeOutputFile(options.output, result.yaml);
      else process.stdout.write(result.yaml);
      const notes = result.findings.filter((f) => f.severity !== "info");
      process.stderr.write(`drafted ${result.rubric.criteria.length} criteria in ${result.attempts} call(s)${notes.length ? `; review: ${notes.map((f) => `${f.criterion} [${f.rule}]`).join(", ")}` : ""}\n`);
      process.exitCode = EXIT.ok;
    });
}

function readText(path: string | undefined, what: string): string | undefined {
  if (path === undefined) return undefined;
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    throw new RubricateError("FILE_NOT_FOUND", `cannot read ${what} file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

function baseInput(options: DraftCliOptions): DraftInput {
  const good: DraftResponse[] = (options.good ?? []).map((f) => ({ response: readText(f, "good response")! }));
  const bad: DraftResponse[] = (options.bad ?? []).map((f) => ({ response: readText(f, "bad response")! }));
  const labelled = readText(options.examples, "examples");
  labelled?.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    const value = jsonLineValue(line, options.examples, i + 1);
    // `null` or a number is JSON too: its fields cannot be read.
    const row: { response?: unknown; label?: unknown; why?: unknown } = isRecord(value) ? value : {};
    if (typeof row.response !== "string" || (row.label !== "good" && row.label !== "bad")) {
      throw new RubricateError("BAD_INPUT", 'each line needs "response" (a string) and "label": "good" or "bad"', { location: { file: options.examples, line: i + 1 } });
    }
    (row.label === "good" ? good : bad).push({ response: row.response, why: typeof row.why === "string" ? row.why : undefined });
  });
  return {
    id: options.id,
    description: options.description,
    task: readText(options.task, "task"),
    notes: readText(options.notes, "notes"),
    reference: readText(options.reference, "reference"),
    good,
    bad,
    inputs: options.inputs?.split(",").map((s) => s.trim()).filter(Boolean),
  };
}

async function perSample(options: DraftCliOptions, draftOptions: DraftOptions, base: DraftInput): Promise<number> {
  const reservedIds = options.base ? loadRubricSync(options.base).criteria.map((c) => c.id) : [];
  const rows: Record<string, unknown>[] = [];
  for await (const row of readJsonl(options.perSample!)) rows.push(row);
  const limit = pLimit(options.concurrency ?? 4);
  let failed = 0;
  const results = await Promise.all(
    rows.map((row, i) =>
      limit(async () => {
        try {
          const { criteria } = await draftSampleCriteria(row, { ...draftOptions, reservedIds, base: { notes: base.notes, inputs: base.inputs } });
          return { ...row, criteria };
        } catch (e) {
          if (!isRubricateError(e) || e.code === "ABORTED") throw e;
          failed++;
          process.stderr.write(`row ${i + 1}${row.id !== undefined ? ` (id ${String(row.id)})` : ""}: ${e.message}\n`);
          return undefined;
        }
      }),
    ),
  );
  const writer = new JsonlWriter(options.output);
  for (const row of results) if (row) await writer.write(row);
  await writer.close();
  process.stderr.write(`drafted instance criteria for ${rows.length - failed} of ${rows.length} rows\n`);
  return failed > 0 ? EXIT.partial : EXIT.ok;
}
