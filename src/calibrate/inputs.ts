/**
 * Reading human labels (JSONL or CSV) and judge verdicts (a results JSONL written by
 * `rubricate score`), joined later on sample id + criterion id.
 */
import { readFileSync } from "node:fs";
import { basename, extname } from "node:path";
import * as z from "zod";
import { RubricateError } from "../errors.js";
import { jsonLineValue } from "../config/jsonl.js";
import { csvRecords } from "./csv.js";
import { decodeUtf8, invalidUtf8Message } from "../text/utf8.js";
import { issueLines } from "../config/issues.js";

const LABEL_WORDS: Record<string, boolean> = { true: true, false: false, yes: true, no: false, "1": true, "0": false };

/** A yes/no label: true/false, yes/no, 1/0 (as booleans, numbers or case-insensitive strings). */
export const LabelValueSchema = z.union([z.boolean(), z.number(), z.string()]).transform((v, ctx) => {
  const word = String(v).trim().toLowerCase();
  if (word in LABEL_WORDS) return LABEL_WORDS[word];
  ctx.addIssue({ code: "custom", message: `label must be true/false, yes/no or 1/0, got ${JSON.stringify(v)}` });
  return z.NEVER;
});

const IdSchema = z.union([z.string().min(1), z.number()]).transform(String);

/** One human label as written in a labels file: a sample id (or a sample carrying one), a criterion, a label. */
export const LabelRowSchema = z
  .object({
    id: IdSchema.optional(),
    sample: z.record(z.string(), z.unknown()).optional(),
    criterion: z.string().min(1),
    label: LabelValueSchema,
    annotator: IdSchema.optional(),
  })
  .refine((r) => r.id !== undefined || (r.sample && (typeof r.sample.id === "string" || typeof r.sample.id === "number")), {
    message: "a label needs an `id`, or a `sample` with an `id`",
  });

/** A human label, ready to join. */
export interface HumanLabel {
  sampleId: string;
  criterion: string;
  label: boolean;
  annotator?: string;
  /** The sample's inputs, when the labels file carried them (needed to score it with a judge). */
  sample?: Record<string, unknown>;
}

/** One criterion's result in a results line (a subset of `CriterionResult` in src/types.ts). */
export const ResultVerdictSchema = z.object({
  id: z.string().min(1),
  status: z.enum(["met", "unmet", "skipped", "error"]),
  probability: z.number().min(0).max(1).optional(),
  reasoning: z.string().optional(),
});

/** One line of a results JSONL (a subset of `ScoreResult` with its sample id). */
export const ResultLineSchema = z.object({
  id: IdSchema,
  verdicts: z.array(ResultVerdictSchema),
  usage: z.object({ costUsd: z.number().optional() }).partial().optional(),
});

/** A judge's answer to one criterion of one sample. */
export interface JudgeVerdict {
  sampleId: string;
  criterion: string;
  status: "met" | "unmet" | "skipped" | "error";
  probability?: number;
  reasoning?: string;
}

/** One judge's verdicts, its name, and what they cost when the results say. */
export interface VerdictSet {
  judge: string;
  verdicts: JudgeVerdict[];
  costUsd?: number;
}

function zodProblem(error: z.ZodError): string {
  return issueLines(error).join("; ");
}

function jsonLines(text: string, file?: string): { value: unknown; line: number }[] {
  const out: { value: unknown; line: number }[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    if (raw.trim() === "") return;
    out.push({ value: jsonLineValue(raw, file, i + 1), line: i + 1 });
  });
  return out;
}

function toLabel(row: z.output<typeof LabelRowSchema>): HumanLabel {
  const sampleId = row.id ?? String(row.sample?.id);
  const label: HumanLabel = { sampleId, criterion: row.criterion, label: row.label };
  if (row.annotator !== undefined) label.annotator = row.annotator;
  if (row.sample) label.sample = row.sample;
  return label;
}

/**
 * Parses human labels from JSONL text, one `{id | sample, criterion, label, annotator?}` per line.
 * @example parseLabelsJsonl('{"id":"s1","criterion":"c","label":"yes"}') // [{ sampleId: "s1", criterion: "c", label: true }]
 */
export function parseLabelsJsonl(text: string, file?: string): HumanLabel[] {
  return jsonLines(text, file).map(({ value, line }) => {
    const r = LabelRowSchema.safeParse(value);
    if (!r.success) throw new RubricateError("BAD_INPUT", `bad label: ${zodProblem(r.error)}`, { location: { file, line } });
    return toLabel(r.data);
  });
}

/**
 * Parses human labels from CSV with a header: `id`, `criterion`, `label`, optional `annotator`;
 * any other column is a sample input (a `sample` column may hold the sample as JSON).
 * @example parseLabelsCsv("id,criterion,label\ns1,c,no\n") // [{ sampleId: "s1", criterion: "c", label: false }]
 */
export function parseLabelsCsv(text: string, file?: string): HumanLabel[] {
  const reserved = new Set(["id", "criterion", "label", "annotator", "sample"]);
  return csvRecords(text, file).map(({ record, row }) => {
    let sample: Record<string, unknown> | undefined;
    if (record.sample) {
      try {
        sample = JSON.parse(record.sample) as Record<string, unknown>;
      } catch {
        throw new RubricateError("BAD_INPUT", `CSV row ${row}: the sample column is not JSON`, { location: { file } });
      }
    }
    const extra = Object.entries(record).filter(([k]) => !reserved.has(k));
    if (extra.length) sample = { ...(sample ?? {}), ...Object.fromEntries(extra) };
    const candidate = {
      id: record.id === "" || record.id === undefined ? undefined : record.id,
      criterion: record.criterion,
      label: record.label,
      annotator: record.annotator === "" || record.annotator === undefined ? undefined : record.annotator,
      sample: sample ? { ...(record.id ? { id: record.id } : {}), ...sample } : undefined,
    };
    const r = LabelRowSchema.safeParse(candidate);
    if (!r.success) throw new RubricateError("BAD_INPUT", `CSV row ${row}: bad label: ${zodProblem(r.error)}`, { location: { file } });
    return toLabel(r.data);
  });
}

/**
 * Reads a labels file: `.csv` as CSV, anything else as JSONL; a missing file is `FILE_NOT_FOUND`.
 * @example readLabels("labels.jsonl")
 */
export function readLabels(path: string): HumanLabel[] {
  const text = readText(path);
  const labels = extname(path).toLowerCase() === ".csv" ? parseLabelsCsv(text, path) : parseLabelsJsonl(text, path);
  // An empty or header-only file calibrated nothing and said so only as cells of "—".
  if (labels.length === 0) throw new RubricateError("BAD_INPUT", `${path} holds no labels`, { location: { file: path } });
  return labels;
}

/**
 * Parses a results JSONL (`rubricate score` output): one verdict per sample × criterion, and the summed cost.
 * @example parseResultsJsonl('{"id":"s1","verdicts":[{"id":"c","status":"met"}]}').verdicts[0].status // "met"
 */
export function parseResultsJsonl(text: string, file?: string): { verdicts: JudgeVerdict[]; costUsd?: number } {
  const verdicts: JudgeVerdict[] = [];
  let cost = 0;
  let costSeen = false;
  for (const { value, line } of jsonLines(text, file)) {
    const r = ResultLineSchema.safeParse(value);
    if (!r.success) throw new RubricateError("BAD_INPUT", `bad result line: ${zodProblem(r.error)}`, { location: { file, line } });
    if (r.data.usage?.costUsd !== undefined) {
      cost += r.data.usage.costUsd;
      costSeen = true;
    }
    for (const v of r.data.verdicts) {
      const verdict: JudgeVerdict = { sampleId: r.data.id, criterion: v.id, status: v.status };
      if (v.probability !== undefined) verdict.probability = v.probability;
      if (v.reasoning !== undefined) verdict.reasoning = v.reasoning;
      verdicts.push(verdict);
    }
  }
  return costSeen ? { verdicts, costUsd: cost } : { verdicts };
}

/**
 * Reads a results JSONL as one judge's verdicts; `spec` is `path` or `name=path` (default name: the file's base name).
 * @example readVerdicts("gpt-4o=results/gpt4o.jsonl").judge // "gpt-4o"
 */
export function readVerdicts(spec: string): VerdictSet {
  const eq = spec.indexOf("=");
  const [name, path] = eq > 0 && !spec.slice(0, eq).includes("/") ? [spec.slice(0, eq), spec.slice(eq + 1)] : [undefined, spec];
  const parsed = parseResultsJsonl(readText(path), path);
  return { judge: name ?? basename(path, extname(path)), ...parsed };
}

/** Reads a UTF-8 file; a missing one is `FILE_NOT_FOUND`, one that is not UTF-8 (a spreadsheet saved as Windows-1252) `BAD_INPUT` at its first invalid byte. */
export function readText(path: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code === "ENOENT" ? "FILE_NOT_FOUND" : "BAD_INPUT";
    throw new RubricateError(code, `cannot read ${path}: ${(e as Error).message}`, { location: { file: path }, cause: e });
  }
  const read = decodeUtf8(bytes);
  if ("bad" in read) throw new RubricateError("BAD_INPUT", invalidUtf8Message(read.bad.byte), { location: { file: path, line: read.bad.line, col: read.bad.col } });
  return read.text;
}
