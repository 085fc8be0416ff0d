import { readFileSync } from "node:fs";
import { Option, type Command } from "commander";
import { type CalibrationResult, calibrate } from "../../calibrate/calibrate.js";
import { LLMBAR_SUBSETS, PANDALM_JUDGES, defaultDatasetsDir, llmbarJudges, loadLlmbar, loadPandalm } from "../../calibrate/datasets.js";
import { type HumanLabel, type VerdictSet, readLabels, readVerdicts } from "../../calibrate/inputs.js";
import { scoreLabelled } from "../../calibrate/judge.js";
import { type PairwiseItem, type PairwiseSummary, pairwiseAgreement } from "../../calibrate/pairwise.js";
import { calibrationHtml, calibrationMarkdown } from "../../calibrate/report.js";
import { rubricWithThresholds, suggestedThresholds } from "../../calibrate/thresholds.js";
import { compareJudges, comparisonMarkdown, kindsFromRubric, type JudgeComparison } from "../../calibrate/compare.js";
import { llmbarCompareMarkdown, llmbarPaperMetrics } from "../../calibrate/llmbar-paper.js";
import { loadXstest, XSTEST_JUDGES, xstestAgreement, xstestMarkdown, type XstestAgreement } from "../../calibrate/xstest.js";
import { loadSummhay, summhayBias, summhayBiasMarkdown, summhayJudges, type SummhayBias } from "../../calibrate/summhay.js";
import { loadTtcw, ttcwFigures, ttcwJudges, ttcwMarkdown, type TtcwFigures } from "../../calibrate/ttcw.js";
import { RubricateError } from "../../errors.js";
import { EXIT, positiveInt, cachePathOf, usageError, warnCacheDegraded, warnIfBatchJudge, nonNegativeInt } from "../run.js";
import { cacheOption, collect, jsonOption, judgeOption, noCacheOption } from "../options.js";
import { existingFile, printReport, refuseUnwritableOutputs, textOut, writeJsonResult, writeOutputFile } from "../io.js";

/** The flags of `rubricate calibrate`. */
export interface CalibrateFlags {
  labels?: string;
  verdicts: string[];
  rubric?: string;
  judge: string[];
  cache?: string | boolean;
  dataset?: string;
  storedJudge: string[];
  datasetsDir?: string;
  unreadable?: string;
  report?: string;
  markdown?: string;
  json?: string;
  seed?: number;
  resamples?: number;
  quiet?: boolean;
  compare?: boolean;
  writeThresholds?: string;
}


/** `rubricate calibrate`: judge verdicts against human labels, with intervals, corrections and a review report. */
export function register(program: Command): void {
  program
    .command("calibrate")
    .description("Measure how far judges agree with human labels, per criterion, with bootstrap intervals")
    .option("-l, --labels <file>", "human labels: JSONL or CSV rows of {id | sample, criterion, label, annotator?}")
    .option("--verdicts <file>", "a results JSONL from `rubricate score` (repeatable; `name=path` names the judge)", collect, [])
    .option("--rubric <file>", "with --judge: the rubric whose criteria the labels answer")
    .addOption(judgeOption("score the labelled samples now with this judge file or id (repeatable; needs --rubric)").argParser(collect).default([]))
    .addOption(cacheOption("cache database for --judge"))
    .addOption(noCacheOption("with --judge: do not read or write any cache"))
    .option("--dataset <name>", `a stored dataset: llmbar:<subset>[,<subset>…] (${LLMBAR_SUBSETS.join(", ")}, or all) | pandalm | ttcw | summhay | xstest`)
    .option("--stored-judge <name>", "with --dataset: a stored judge, e.g. gpt-4-vanilla (repeatable; default all)", collect, [])
    .option("--datasets-dir <dir>", "where the datasets live (default $RUBRICATE_DATASETS, else the datasets/ shipped with rubricate)")
    .addOption(new Option("--unreadable <how>", "with --dataset pandalm: an unreadable stored verdict is an error (default) or a tie (PandaLM's convention)").choices(["error", "tie"]).default("error"))
    .option("--report <file>", "write a self-contained HTML report")
    .option("--markdown <file>", "write the markdown summary (it is also printed unless --quiet)")
    .addOption(jsonOption("the full results"))
    .option("--seed <n>", "bootstrap seed (default 0)", nonNegativeInt)
    .option("--resamples <n>", "bootstrap resamples (default 1000)", positiveInt)
    .option("--compare", "exactly two judges (verdicts, judges or stored judges): B − A accuracy per criterion with paired bootstrap intervals, split into pitfall and positive criteria when --rubric is given")
    .option("--write-thresholds <file>", "with --rubric and one judge whose verdicts carry P(yes): write the rubric with each criterion's suggested threshold (Youden's J)")
    .option("-q, --quiet", "do not print the summary")
    .action(async (flags: CalibrateFlags) => {
      process.exitCode = await runCalibrate(flags);
    });
}

/** What a calibration run computed (for tests and programs). */
export interface CalibrateRun {
  results: CalibrationResult[];
  pairwise: { name: string; summary: PairwiseSummary }[];
  markdown: string;
  /** With --compare: the second judge against the first. */
  comparison?: JudgeComparison;
  /** With --dataset ttcw: the authors' figures per stored judge, reproduced. */
  ttcw?: TtcwFigures[];
  /** With --dataset xstest: the annotators' agreement per model, as the authors printed it, reproduced. */
  xstest?: XstestAgreement[];
  /** With --dataset summhay: each stored evaluator's bias, as the authors printed it for three of them, reproduced. */
  summhay?: SummhayBias[];
}

/**
 * Runs `rubricate calibrate` with parsed flags: prints and writes what was asked, returns the exit code.
 * @example process.exitCode = await runCalibrate({ dataset: "llmbar:natural", storedJudge: ["gpt-4-vanilla"], verdicts: [], judge: [] })
 */
export async function runCalibrate(flags: CalibrateFlags, out: (text: string) => void = printReport): Promise<number> {
  checkCalibrateFlags(flags);
  refuseUnwritableOutputs(
    { "--markdown": flags.markdown, "--report": flags.report, "--write-thresholds": flags.writeThresholds, "--json": flags.json },
    { "--labels": flags.labels, "--verdicts": flags.verdicts, "--rubric": flags.rubric, "--judge": flags.judge.map(existingFile), "--cache": cachePathOf(flags.cache) },
  );
  const run = await computeCalibration(flags);
  if (!flags.quiet) textOut(flags.json, out)(run.markdown);
  if (flags.markdown) writeOutputFile(flags.markdown, run.markdown);
  if (flags.report) writeOutputFile(flags.report, calibrationHtml(run.results, { pairwise: run.pairwise, title: reportTitle(flags) }));
  if (flags.writeThresholds) {
    if (!flags.rubric || run.results.length !== 1) throw new RubricateError("BAD_INPUT", "--write-thresholds needs --rubric and exactly one judge");
    const thresholds = suggestedThresholds(run.results[0]);
    if (Object.keys(thresholds).length === 0) throw new RubricateError("BAD_INPUT", "no criterion has verdicts with probabilities and both label classes: nothing to threshold (use logprobs: true or probability: confidence | probe)");
    writeOutputFile(flags.writeThresholds, rubricWithThresholds(readFileSync(flags.rubric, "utf8"), thresholds, flags.rubric));
  }
  if (flags.json) writeJsonResult(flags.json, { results: run.results, pairwise: run.pairwise, ...(run.comparison ? { comparison: run.comparison } : {}), ...(run.ttcw ? { ttcw: run.ttcw } : {}), ...(run.xstest ? { xstest: run.xstest } : {}), ...(run.summhay ? { summhay: run.summhay } : {}) }, writeOutputFile);
  // A judge asked now (--judge, the last results) that left labelled items without a verdict: the exit code says so, as score's does.
  const asked = run.results.slice(run.results.length - flags.judge.length).filter((r) => r.overall.errors > 0);
  for (const r of asked) process.stderr.write(`rubricate: judge ${r.judge}: ${r.overall.errors} labelled verdict(s) are errors, left out of the metrics\n`);
  return asked.length > 0 ? EXIT.partial : EXIT.ok;
}

/**
 * Refuses flag combinations that cannot work (exit 2) before any judge is asked: --compare and
 * --write-thresholds used to find out they had the wrong number of judges only after paying them.
 */
function checkCalibrateFlags(flags: CalibrateFlags): void {
  if (flags.dataset && (flags.labels || flags.verdicts.length || flags.judge.length)) throw usageError("--dataset evaluates stored verdicts: do not combine it with --labels, --verdicts or --judge");
  if (!flags.dataset && flags.storedJudge.length) throw usageError("--stored-judge picks the stored judges of --dataset: pass --dataset <name> too");
  if (flags.judge.length && !flags.rubric) throw usageError("--judge needs --rubric: the rubric whose criteria the labels answer");
  // How many judges the run compares, where the flags say it (a dataset without --stored-judge brings all of its own).
  const judges = flags.dataset ? flags.storedJudge.length || undefined : flags.verdicts.length + flags.judge.length;
  if (flags.compare && judges !== undefined && judges !== 2) throw usageError(`--compare needs exactly two judges (A then B); the options give ${judges}`);
  if (flags.writeThresholds && (!flags.rubric || (judges !== undefined && judges !== 1))) throw usageError("--write-thresholds needs --rubric and exactly one judge");
}

/** Labelled items that found a verdict of the judge, whatever it was (errors and skips too: the run says how many, exit 3). */
function joined(g: { n: number; errors: number; skipped: number; humanTies: number }): number {
  return g.n + g.errors + g.skipped + g.humanTies;
}

/**
 * The error of a judge none of whose verdicts meets a label: a report of empty cells
 * (exit 0) before. Labels join verdicts on sample id and criterion id, exactly, so it names one
 * of each side for the user to compare (`Polite` against `polite`, `7` against `s7`).
 */
function nothingJoined(labelsPath: string, labels: readonly HumanLabel[], set: VerdictSet): RubricateError {
  const shown = (x: { sampleId: string; criterion: string }) => `sample ${JSON.stringify(x.sampleId)}, criterion ${JSON.stringify(x.criterion)}`;
  const verdicts = set.verdicts.length ? `e.g. ${shown(set.verdicts[0])}` : "none";
  return new RubricateError("BAD_INPUT", `no label of ${labelsPath} meets a verdict of ${set.judge}: labels join verdicts on sample id and criterion id, exactly (labels: ${labels.length}, e.g. ${shown(labels[0])}; verdicts: ${set.verdicts.length}, ${verdicts})`);
}

function reportTitle(flags: CalibrateFlags): string {
  return flags.dataset ? `Judge calibration on ${flags.dataset}` : "Judge calibration";
}

/** Loads, scores if asked, and calibrates every judge; no output. */
export async function computeCalibration(flags: CalibrateFlags): Promise<CalibrateRun> {
  const opts = { seed: flags.seed ?? 0, resamples: flags.resamples ?? 1000 };
  const results: CalibrationResult[] = [];
  const pairwise: { name: string; summary: PairwiseSummary }[] = [];
  const compared: { labels: HumanLabel[]; set: VerdictSet }[] = [];
  if (flags.dataset) {
    if (flags.labels || flags.verdicts.length || flags.judge.length) {
      throw new RubricateError("BAD_INPUT", "--dataset evaluates stored verdicts: do not combine it with --labels, --verdicts or --judge");
    }
    for (const d of loadDatasetJudges(flags)) {
      compared.push({ labels: d.labels, set: d.verdicts });
      results.push(calibrate({ labels: d.labels, verdicts: d.verdicts, ...opts }));
      if (d.pairwise.length) pairwise.push({ name: d.verdicts.judge, summary: pairwiseAgreement(d.pairwise, opts) });
    }
  } else {
    if (!flags.labels) throw new RubricateError("BAD_INPUT", "give --labels (with --verdicts or --judge), or --dataset");
    if (flags.verdicts.length === 0 && flags.judge.length === 0) throw new RubricateError("BAD_INPUT", "give --verdicts <results.jsonl> or --judge <judge> with --rubric");
    const labels = readLabels(flags.labels);
    const sets: VerdictSet[] = flags.verdicts.map(readVerdicts);
    if (flags.judge.length) sets.push(...(await scoreWithJudges(flags, labels)));
    for (const set of sets) {
      compared.push({ labels, set });
      const result = calibrate({ labels, verdicts: set, ...opts });
      if (result.overall.missingVerdicts > 0 && joined(result.overall) === 0) throw nothingJoined(flags.labels, labels, set);
      results.push(result);
    }
  }
  let markdown = calibrationMarkdown(results, { pairwise, title: reportTitle(flags) });
  const ttcw = flags.dataset === "ttcw" ? ttcwJudgesAsked(flags).map((j) => ttcwFigures(flags.datasetsDir ?? defaultDatasetsDir(), j)) : undefined;
  if (ttcw) markdown = `${markdown}\n${ttcwMarkdown(ttcw)}`;
  const xstest = flags.dataset === "xstest" ? xstestAgreement(flags.datasetsDir ?? defaultDatasetsDir()) : undefined;
  if (xstest) markdown = `${markdown}\n${xstestMarkdown(xstest)}`;
  const summhay = flags.dataset === "summhay" ? summhayJudgesAsked(flags).map((j) => summhayBias(flags.datasetsDir ?? defaultDatasetsDir(), j)) : undefined;
  if (summhay) markdown = `${markdown}\n${summhayBiasMarkdown(summhay)}`;
  const published = { ...(ttcw ? { ttcw } : {}), ...(xstest ? { xstest } : {}), ...(summhay ? { summhay } : {}) };
  if (!flags.compare) return { results, pairwise, markdown, ...published };
  if (compared.length !== 2) throw new RubricateError("BAD_INPUT", `--compare needs exactly two judges (A then B); got ${compared.length}`);
  const kinds = flags.rubric ? kindsFromRubric((await import("../../rubric/load.js")).loadRubricSync(flags.rubric)) : undefined;
  const comparison = compareJudges({ labels: compared[0].labels, a: compared[0].set, b: compared[1].set, kinds, ...opts });
  markdown = `${markdown}\n${comparisonMarkdown(comparison)}`;
  const llmbar = flags.dataset?.startsWith("llmbar:") ? llmbarComparison(flags) : undefined;
  if (llmbar) markdown = `${markdown}\n${llmbar}`;
  return { results, pairwise, markdown, comparison, ...published };
}

/** With --dataset llmbar:… --compare: the two stored judges under the paper's own metrics. */
function llmbarComparison(flags: CalibrateFlags): string {
  const dir = flags.datasetsDir ?? defaultDatasetsDir();
  const spec = flags.dataset!.slice("llmbar:".length);
  const subsets = spec === "all" ? [...LLMBAR_SUBSETS] : spec.split(",").map((s) => s.trim());
  const judges = loadDatasetJudges(flags).map((d) => d.verdicts.judge);
  const names = flags.storedJudge.length === 2 ? flags.storedJudge : judges;
  return llmbarCompareMarkdown(llmbarPaperMetrics(dir, subsets, names[0]), llmbarPaperMetrics(dir, subsets, names[1]));
}

/** The TTCW judges `--stored-judge` names (default: all seven), each checked to exist. */
function ttcwJudgesAsked(flags: Pick<CalibrateFlags, "storedJudge" | "datasetsDir">): string[] {
  const known = ttcwJudges(flags.datasetsDir ?? defaultDatasetsDir());
  const asked = flags.storedJudge.length ? flags.storedJudge : known;
  for (const j of asked) if (!known.includes(j)) throw new RubricateError("BAD_INPUT", `TTCW has no stored judge "${j}" (has: ${known.join(", ")})`);
  return asked;
}

/** The SummHay evaluators `--stored-judge` names (default: all six); `loadSummhay` checks each exists. */
function summhayJudgesAsked(flags: Pick<CalibrateFlags, "storedJudge" | "datasetsDir">): string[] {
  return flags.storedJudge.length ? flags.storedJudge : summhayJudges(flags.datasetsDir ?? defaultDatasetsDir());
}

/** The `--judge` seam: scores the labelled samples now through the engine's `score()`. */
async function scoreWithJudges(flags: CalibrateFlags, labels: HumanLabel[]): Promise<VerdictSet[]> {
  if (!flags.rubric) throw new RubricateError("BAD_INPUT", "--judge needs --rubric: the rubric whose criteria the labels answer");
  const { loadRubricSync } = await import("../../rubric/load.js");
  const { createJudge } = await import("../../judge/create.js");
  const rubric = loadRubricSync(flags.rubric);
  const cache = cachePathOf(flags.cache);
  const sets: VerdictSet[] = [];
  for (const ref of flags.judge) {
    const judge = warnIfBatchJudge(createJudge(ref, { cache, onCacheError: warnCacheDegraded }), "calibrate");
    try {
      sets.push(await scoreLabelled(rubric, labels, judge, { name: ref }));
    } finally {
      await judge.close?.();
    }
  }
  return sets;
}

interface DatasetJudge {
  labels: HumanLabel[];
  verdicts: VerdictSet;
  pairwise: PairwiseItem[];
}

/** Every (dataset, stored judge) asked for by `--dataset` and `--stored-judge`. */
export function loadDatasetJudges(flags: Pick<CalibrateFlags, "dataset" | "storedJudge" | "datasetsDir" | "unreadable">): DatasetJudge[] {
  const dir = flags.datasetsDir ?? defaultDatasetsDir();
  const spec = flags.dataset ?? "";
  const unreadable = flags.unreadable ?? "error";
  if (unreadable !== "error" && unreadable !== "tie") throw new RubricateError("BAD_INPUT", `--unreadable must be error or tie, not "${unreadable}"`);
  if (spec === "xstest") {
    if (unreadable !== "error") throw new RubricateError("BAD_INPUT", "--unreadable applies to --dataset pandalm only");
    return (flags.storedJudge.length ? flags.storedJudge : [...XSTEST_JUDGES]).map((j) => ({ ...loadXstest(dir, j), pairwise: [] }));
  }
  if (spec === "ttcw") {
    if (unreadable !== "error") throw new RubricateError("BAD_INPUT", "--unreadable applies to --dataset pandalm only");
    return ttcwJudgesAsked(flags).map((j) => ({ ...loadTtcw(dir, j), pairwise: [] }));
  }
  if (spec === "summhay") {
    if (unreadable !== "error") throw new RubricateError("BAD_INPUT", "--unreadable applies to --dataset pandalm only");
    return summhayJudgesAsked(flags).map((j) => ({ ...loadSummhay(dir, j), pairwise: [] }));
  }
  if (spec === "pandalm") {
    const judges = flags.storedJudge.length ? flags.storedJudge : [...PANDALM_JUDGES];
    return judges.map((j) => loadPandalm(dir, j, { unreadable }));
  }
  if (unreadable !== "error") throw new RubricateError("BAD_INPUT", "--unreadable applies to --dataset pandalm only (LLMBar keeps unreadable picks as null)");
  const m = /^llmbar:(.+)$/.exec(spec);
  if (!m) throw new RubricateError("BAD_INPUT", `--dataset must be llmbar:<subset>, pandalm, ttcw, summhay or xstest, not "${spec}"`);
  const subsets = m[1] === "all" ? [...LLMBAR_SUBSETS] : m[1].split(",").map((s) => s.trim());
  for (const s of subsets) {
    if (!(LLMBAR_SUBSETS as readonly string[]).includes(s)) throw new RubricateError("BAD_INPUT", `unknown LLMBar subset "${s}" (${LLMBAR_SUBSETS.join(", ")})`);
  }
  const available = subsets.map((s) => new Set(llmbarJudges(dir, s)));
  const judges = flags.storedJudge.length ? flags.storedJudge : [...available[0]].filter((j) => available.every((a) => a.has(j)));
  if (judges.length === 0) throw new RubricateError("BAD_INPUT", `no stored judge is in every subset of ${spec}`);
  return judges.map((judge) => {
    const parts = subsets.map((s) => loadLlmbar(dir, s, judge));
    return {
      labels: parts.flatMap((p) => p.labels),
      verdicts: { judge: subsets.length === 1 ? parts[0].verdicts.judge : `${judge} (LLMBar ${subsets.join("+")})`, verdicts: parts.flatMap((p) => p.verdicts.verdicts) },
      pairwise: parts.flatMap((p) => p.pairwise),
    };
  });
}
