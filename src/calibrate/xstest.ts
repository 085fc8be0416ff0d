/**
 * XSTest v2 (Röttger et al., NAACL 2024; paul-rottger/exaggerated-safety, CC BY 4.0): 2,250
 * completions of 5 models to 450 prompts (250 safe, 200 unsafe contrasts), each labelled by two
 * annotators (`final_label`), with the verdicts of two stored classifiers: GPT-4 (`gpt4`) and
 * string matching (`strmatch`). Loaded as one pointwise criterion, `refusal`: does the completion
 * refuse, fully or partly?
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { RubricateError } from "../errors.js";
import { fleissKappa } from "./agreement.js";
import { jsonl } from "./datasets.js";
import type { HumanLabel, JudgeVerdict, VerdictSet } from "./inputs.js";
import { readText } from "./inputs.js";
import { jsonLineValue } from "../config/jsonl.js";
import { isRecord } from "../text/json.js";

/** The stored XSTest classifiers. */
export const XSTEST_JUDGES = ["gpt4", "strmatch"] as const;

/** A label as XSTest writes it, read as "refuses": full or partial refusal yes, compliance no, anything else unreadable. */
function refuses(label: unknown): boolean | null {
  const s = String(label ?? "");
  if (s.startsWith("1_")) return false;
  if (s.startsWith("2_") || s.startsWith("3_")) return true;
  return null;
}

/**
 * XSTest with one stored classifier, for `calibrate`: the annotators' `final_label` as the human
 * label, the classifier's label as the verdict (an unreadable one — GPT-4 sometimes answered in
 * prose — is an error, never a "no"). Sample ids are `<model>:<id>`.
 * @example loadXstest(packagedDatasetsDir(), "gpt4").labels.length // 2250
 */
export function loadXstest(dir: string, judge: string): { labels: HumanLabel[]; verdicts: VerdictSet } {
  if (!(XSTEST_JUDGES as readonly string[]).includes(judge)) throw new RubricateError("BAD_INPUT", `XSTest has no stored judge "${judge}" (has: ${XSTEST_JUDGES.join(", ")})`);
  const folder = join(dir, "xstest");
  if (!existsSync(folder)) throw new RubricateError("FILE_NOT_FOUND", `no XSTest data in ${folder}`);
  const labels: HumanLabel[] = [];
  const verdicts: JudgeVerdict[] = [];
  for (const file of readdirSync(folder).filter((f) => f.startsWith("completions-") && f.endsWith(".jsonl")).sort()) {
    const model = file.slice("completions-".length, -".jsonl".length);
    readText(join(folder, file))
      .split(/\r?\n/)
      .forEach((line, i) => {
        if (line.trim() === "") return;
        const value = jsonLineValue(line, join(folder, file), i + 1);
        if (!isRecord(value)) throw new RubricateError("BAD_INPUT", "an XSTest row is a JSON object", { location: { file: join(folder, file), line: i + 1, col: 1 } });
        const row = value;
        const sampleId = `${model}:${String(row.id)}`;
        const human = refuses(row.final_label);
        if (human === null) throw new RubricateError("BAD_INPUT", `XSTest ${sampleId}: unknown final_label ${JSON.stringify(row.final_label)}`, { location: { file: join(folder, file), line: i + 1 } });
        labels.push({ sampleId, criterion: "refusal", label: human });
        const raw = row[`${judge}_label`];
        const v = refuses(raw);
        verdicts.push({ sampleId, criterion: "refusal", status: v === null ? "error" : v ? "met" : "unmet", ...(v === null ? { reasoning: `unreadable label ${JSON.stringify(raw)}` } : {}) });
      });
  }
  return { labels, verdicts: { judge: `${judge} (XSTest)`, verdicts } };
}

/** The five models of XSTest v2, in the authors' order. */
export const XSTEST_MODELS = ["llama2orig", "llama2new", "mistralinstruct", "mistralguard", "gpt4"] as const;

/** The two annotators' agreement on one model's completions, as the authors measured it. */
export interface XstestAgreement {
  model: string;
  /** Share of completions where both annotators gave the same of the three labels. */
  agreement: number;
  /** Fleiss' kappa of the two annotators over the three labels. */
  fleissKappa: number;
  completions: number;
}

/**
 * What the authors printed (evaluation/analysis.ipynb, "Evaluate agreement", commit d7bb5bd):
 * the `agreement` column's mean as a percentage with one decimal, and Fleiss' kappa of
 * annotation_1 and annotation_2 with two. The notebook's other tables (labels by prompt type,
 * safe against unsafe prompts, the classifiers' labels) are pandas Styler objects whose numbers
 * the notebook does not save, and the paper's own figures are not in the repository.
 */
export const XSTEST_PUBLISHED: Record<(typeof XSTEST_MODELS)[number], { agreementPercent: number; fleissKappa: number }> = {
  llama2orig: { agreementPercent: 96.4, fleissKappa: 0.93 },
  llama2new: { agreementPercent: 95.8, fleissKappa: 0.93 },
  mistralinstruct: { agreementPercent: 97.6, fleissKappa: 0.92 },
  mistralguard: { agreementPercent: 93.8, fleissKappa: 0.89 },
  gpt4: { agreementPercent: 98.4, fleissKappa: 0.97 },
};

/**
 * The annotators' agreement per model, computed from the shipped labels: the share of rows whose
 * `agreement` column is True (the authors' measure; it equals annotation_1 = annotation_2 on every
 * shipped row) and Fleiss' kappa of the two annotations over the three classes.
 */
export function xstestAgreement(dir: string): XstestAgreement[] {
  return XSTEST_MODELS.map((model) => {
    const file = join(dir, "xstest", `completions-${model}.jsonl`);
    if (!existsSync(file)) throw new RubricateError("FILE_NOT_FOUND", `no XSTest completions for ${model} in ${join(dir, "xstest")}`);
    const rows = jsonl(file);
    const kappa = fleissKappa(rows.map((r) => [String(r.annotation_1), String(r.annotation_2)]));
    if (kappa.value === null) throw new RubricateError("BAD_INPUT", `XSTest ${model}: Fleiss' kappa is undefined (${kappa.reason ?? ""})`, { location: { file } });
    return { model, agreement: rows.filter((r) => String(r.agreement) === "True").length / rows.length, fleissKappa: kappa.value, completions: rows.length };
  });
}

/** The agreement table: rubricate's figure, then the published one in parentheses. */
export function xstestMarkdown(rows: readonly XstestAgreement[]): string {
  const pub = (m: string) => XSTEST_PUBLISHED[m as keyof typeof XSTEST_PUBLISHED];
  return [
    "### XSTest: the two annotators' agreement per model",
    "",
    "Published: evaluation/analysis.ipynb, \"Evaluate agreement\" output (paul-rottger/exaggerated-safety). Each cell: rubricate (published).",
    "",
    "| model | completions | agreement | Fleiss' kappa |",
    "| --- | ---: | ---: | ---: |",
    ...rows.map((r) => `| ${r.model} | ${r.completions} | ${(r.agreement * 100).toFixed(1)}% (${pub(r.model)?.agreementPercent.toFixed(1) ?? "–"}%) | ${r.fleissKappa.toFixed(2)} (${pub(r.model)?.fleissKappa.toFixed(2) ?? "–"}) |`),
    "",
  ].join("\n");
}
