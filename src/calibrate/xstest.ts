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
import type { HumanLabel, JudgeVerdict, VerdictSet } from "./inputs.js";
import { readText } from "./inputs.js";

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
        let row: Record<string, unknown>;
        try {
          row = JSON.parse(line) as Record<string, unknown>;
        } catch (e) {
          throw new RubricateError("BAD_INPUT", "not valid JSON", { location: { file: join(folder, file), line: i + 1 }, cause: e });
        }
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
