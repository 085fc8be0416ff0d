/** Calibration: how far a judge can be trusted, criterion by criterion, against human labels. */
export { calibrate } from "./calibrate.js";
export type { CalibrateInput, CalibrationResult, CriterionCalibration, Disagreement, GroupCalibration, MetricWithCI, ProbabilityCalibration } from "./calibrate.js";
export { rankJudges, type JudgeRank } from "./rank.js";
export {
  accuracy, allMetrics, balancedF1, cohensKappa, confusion, confusionFrom, count, expectedAgreement, f1Negative, f1Positive,
  METRICS, npv, passRate, precision, prevalence, tnr, tpr,
} from "./metrics.js";
export type { Confusion, LabelPair, MetricDef, MetricName } from "./metrics.js";
export { bootstrap, bootstrapMany, quantile, seededRandom, type BootstrapOptions, type Interval } from "../stats/bootstrap.js";
export { correctedPassRate, roganGladen, USELESS_JUDGE_WARNING, type CorrectedPassRate, type RoganGladen } from "./corrected.js";
export {
  brierScore, confusionAtThreshold, expectedCalibrationError, prevalenceThreshold, reliabilityBins, youdenThreshold,
  type ProbabilityPair, type ReliabilityBin, type ThresholdSuggestion,
} from "./probability.js";
export { annotatorAgreement, cohensKappaLabels, majority, type AnnotatedItem, type AnnotatorAgreement, type ClassLabel, type Kappa } from "./agreement.js";
export { pairwiseAgreement, parseWinner, type PairwiseItem, type PairwiseSummary, type Winner } from "./pairwise.js";
export { parseCsv, csvRecords } from "./csv.js";
export {
  parseLabelsCsv, parseLabelsJsonl, parseResultsJsonl, readLabels, readVerdicts,
  LabelRowSchema, ResultLineSchema, type HumanLabel, type JudgeVerdict, type VerdictSet,
} from "./inputs.js";
export { LLMBAR_SUBSETS, PANDALM_JUDGES, defaultDatasetsDir, llmbarJudges, loadLlmbar, loadPandalm, type LoadedDataset } from "./datasets.js";
export { labelledSamples, resultVerdicts, scoreLabelled } from "./judge.js";
export { calibrationHtml, calibrationMarkdown, type ReportExtras } from "./report.js";
export { compareJudges, comparisonMarkdown, kindsFromRubric, type ComparisonRow, type CriterionKind, type JudgeComparison } from "./compare.js";
export { rubricWithThresholds, suggestedThresholds } from "./thresholds.js";
export { pairwiseClassMetrics, type PairwiseClassMetrics } from "./pairwise.js";
export { packagedDatasetsDir, type PandalmOptions } from "./datasets.js";
