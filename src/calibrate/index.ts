/** Calibration: how far a judge can be trusted, criterion by criterion, against human labels. */
export { calibrate } from "./calibrate.js";
export type { CalibrateInput, CalibrationResult, CriterionCalibration, Disagreement, GroupCalibration, MetricWithCI, ProbabilityCalibration } from "./calibrate.js";
export { rankJudges, type JudgeRank } from "./rank.js";
export { accuracy, allMetrics, balancedF1, cohensKappa, confusion, f1Negative, f1Positive, METRICS, npv, passRate, precision, prevalence, tnr, tpr } from "./metrics.js";
export type { Confusion, LabelPair, MetricName } from "./metrics.js";
export { bootstrap, type BootstrapOptions, type Interval } from "../stats/bootstrap.js";
export { correctedPassRate, roganGladen, type CorrectedPassRate, type RoganGladen } from "./corrected.js";
export { brierScore, expectedCalibrationError, reliabilityBins, youdenThreshold, type ProbabilityPair, type ReliabilityBin, type ThresholdSuggestion } from "./probability.js";
export { annotatorAgreement, majority, type AnnotatorAgreement, type Kappa } from "./agreement.js";
export { pairwiseAgreement, type PairwiseItem, type PairwiseSummary, type Winner } from "./pairwise.js";
export { readLabels, readVerdicts, type HumanLabel, type JudgeVerdict, type VerdictSet } from "./inputs.js";
export { LLMBAR_SUBSETS, PANDALM_JUDGES, llmbarJudges, loadLlmbar, loadPandalm, packagedDatasetsDir, type LoadedDataset, type PandalmOptions } from "./datasets.js";
export { scoreLabelled } from "./judge.js";
export { calibrationHtml, calibrationMarkdown } from "./report.js";
export { compareJudges, comparisonMarkdown, type ComparisonRow, type CriterionKind, type JudgeComparison } from "./compare.js";
export { suggestedThresholds } from "./thresholds.js";
export { pairwiseClassMetrics, type PairwiseClassMetrics } from "./pairwise.js";
export { llmbarPaperMetrics, llmbarPositionAgreement, type LlmbarPaperMetrics } from "./llmbar-paper.js";
export { loadTtcw, ttcwFigures, ttcwJudges, type TtcwFigures } from "./ttcw.js";
export { loadSummhay, summhayBias, summhayJudges, type SummhayBias } from "./summhay.js";

// Types the exports above name in their signatures, so callers can name them too.
export type { AnnotatedItem, ClassLabel, PairAgreement, VsMajority } from "./agreement.js";
export type { MetricDef } from "./metrics.js";
export type { ReportExtras } from "./report.js";
