import { InvalidArgumentError, type Command } from "commander";
import { RubricateError } from "../../errors.js";
import { chooseJudge, createJudge, type EngineJudge } from "../../judge/create.js";
import { builtinAttacks, loadAttacks, mergeAttacks } from "../../probe/attacks.js";
import { createAttacker, type Attacker } from "../../probe/attacker.js";
import { probeHtml, probeMarkdown } from "../../probe/report.js";
import { hackTally, runHacks, type HackRun } from "../../probe/hacks.js";
import { probe, type ProbeResult } from "../../probe/run.js";
import type { Rubric } from "../../rubric/schema.js";
import { loadRubricSync } from "../../rubric/load.js";
import type { Sample } from "../../types.js";
import { existingFile, readJsonl, refuseUnwritableOutputs, textOut, writeJsonResult, writeOutputFile } from "../io.js";
import { Progress } from "../progress.js";
import { EXIT, interruptSignal, positiveInt, cachePathOf, usageError, warnCacheDegraded, warnIfBatchJudge } from "../run.js";
import { cacheOption, collect, concurrencyOption, jsonOption, judgeOption, noCacheOption } from "../options.js";

/** Exit code when an attack's mean reward is above `--fail-above` (distinct from errors and partial runs). */
export const EXIT_PROBE_FAILED = 4;

interface ProbeFlags {
  judge?: string;
  attacks: string[];
  builtin: boolean;
  attacker?: string;
  attackerAttempts: number;
  report?: string;
  markdown?: string;
  json?: string;
  failAbove?: number;
  questionField?: string;
  referenceField?: string;
  responseField?: string;
  cache: string | boolean;
  concurrency?: number;
  quiet?: boolean;
  hacksOnly?: boolean;
}


function reward(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError(`expected a reward between 0 and 1, got "${value}"`);
  return n;
}

/** `rubricate probe <rubric> <samples.jsonl> --judge <judge> [--attacks extra.yaml] [--fail-above 0.2]`. */
export function register(program: Command): void {
  program
    .command("probe")
    .description(`Attack a rubric with responses that deserve zero (empty, keyword stuffing, injection, forged delimiters, …) and report what they win; exit ${EXIT_PROBE_FAILED} when an attack's mean reward is above --fail-above`)
    .argument("<rubric>", "rubric YAML file")
    .argument("<samples>", "samples JSONL (each row's task inputs; its response is replaced by each attack), or - for stdin")
    .addOption(judgeOption())
    .option("--attacks <file>", "extra attack YAML file or folder (repeatable)", collect, [])
    .option("--no-builtin", "use only the --attacks files, not the packaged battery")
    .option("--attacker <judge>", "a judge file naming a model that writes extra attacks per sample")
    .option("--attacker-attempts <n>", "attacks the attacker writes per sample (the best one is kept)", positiveInt, 4)
    .option("--report <file>", "write an HTML report")
    .option("--markdown <file>", "write a markdown report")
    .addOption(jsonOption("the full result (every run, summaries, findings)"))
    .option("--fail-above <reward>", `exit ${EXIT_PROBE_FAILED} when any attack that deserves zero has a mean reward above this`, reward)
    .option("--question-field <name>", "the input holding the task (default: guessed: question, prompt, problem, …)")
    .option("--reference-field <name>", "the input holding the reference answer (default: guessed: answer, reference, …)")
    .option("--response-field <name>", "the input the attacks replace (default: the rubric's response_field or response)")
    .addOption(cacheOption())
    .addOption(noCacheOption("do not read or write any cache"))
    .addOption(concurrencyOption("responses scored at once"))
    .option("-q, --quiet", "no progress; print only the summary table")
    .option("--hacks-only", `run only the check kinds' known hacks against the rubric's code checks (no judge, no attack battery); exit ${EXIT_PROBE_FAILED} when a hack passes`)
    .action(async (rubricPath: string, samplesPath: string, flags: ProbeFlags) => {
      process.exitCode = await runProbe(rubricPath, samplesPath, flags);
    });
}

async function runProbe(rubricPath: string, samplesPath: string, flags: ProbeFlags): Promise<number> {
  checkProbeFlags(flags);
  refuseUnwritableOutputs(
    { "--report": flags.report, "--markdown": flags.markdown, "--json": flags.json },
    { "the rubric file": rubricPath, "the samples file": samplesPath, "--judge": existingFile(flags.judge), "--attacks": flags.attacks, "--cache": cachePathOf(flags.cache) },
  );
  const rubric = loadRubricSync(rubricPath);
  if (flags.hacksOnly) return runHacksOnly(rubric, await readSamples(samplesPath), flags);
  const attacks = mergeAttacks(flags.builtin ? builtinAttacks() : [], ...flags.attacks.map((f) => loadAttacks(f)));
  if (attacks.length === 0) throw new RubricateError("BAD_INPUT", "no attacks: pass --attacks <file> or drop --no-builtin");
  const samples = await readSamples(samplesPath);
  const judgeRef = chooseJudge(flags.judge, rubric);
  const needsJudge = rubric.criteria.some((c) => c.question);
  if (needsJudge && !judgeRef) throw new RubricateError("NO_JUDGE", "this rubric asks LLM questions: pass --judge <file>");
  const cachePath = cachePathOf(flags.cache);
  const judge: EngineJudge | undefined = needsJudge ? warnIfBatchJudge(createJudge(judgeRef!, { cache: cachePath, onCacheError: warnCacheDegraded }), "probe") : undefined;
  let attacker: Attacker | undefined;
  // Created at the first scored response, when the number of attack responses is known.
  let progress: Progress | undefined;
  const interrupt = interruptSignal();
  let result: ProbeResult;
  try {
    attacker = flags.attacker ? createAttacker(flags.attacker, { attempts: flags.attackerAttempts, engine: judge?.engine, cache: cachePath }) : undefined;
    result = await probe(rubric, samples, {
      judge,
      attacks,
      attacker,
      judgeSystem: judge?.config.system,
      threshold: flags.failAbove ?? 0,
      concurrency: flags.concurrency,
      signal: interrupt.signal,
      fields: { question: flags.questionField, reference: flags.referenceField, response: flags.responseField },
      onProgress: (done, total) => {
        progress ??= new Progress(total, !flags.quiet);
        progress.update(done, "attack responses scored");
      },
    });
  } catch (e) {
    if (e instanceof RubricateError && e.code === "ABORTED") return EXIT.interrupted;
    throw e;
  } finally {
    interrupt.dispose();
    progress?.finish();
    attacker?.close?.();
    await judge?.close?.();
  }
  if (flags.markdown) writeOutputFile(flags.markdown, probeMarkdown(result));
  if (flags.report) writeOutputFile(flags.report, probeHtml(result));
  if (flags.json) writeJsonResult(flags.json, result, writeOutputFile);
  textOut(flags.json, (t) => process.stdout.write(t))(`${summaryText(result)}\n${hacksText(result.hacks)}\n`);
  if (flags.failAbove !== undefined && (result.worstReward > flags.failAbove || result.hacks.some((h) => h.passed))) return EXIT_PROBE_FAILED;
  return result.attacks.some((a) => a.errors > 0) || result.attackerErrors.length > 0 ? EXIT.partial : EXIT.ok;
}

/** Refuses flag combinations that cannot work (exit 2): --hacks-only runs no attack and writes no report, so what those options ask would silently not happen. */
function checkProbeFlags(flags: ProbeFlags): void {
  if (!flags.hacksOnly) return;
  const ignored = [flags.attacker && "--attacker", flags.attacks.length > 0 && "--attacks", !flags.builtin && "--no-builtin", flags.report && "--report", flags.markdown && "--markdown"].filter(Boolean);
  if (ignored.length) throw usageError(`--hacks-only runs no attack and writes no report: drop ${ignored.join(", ")} (or --hacks-only)`);
}

async function readSamples(samplesPath: string): Promise<Sample[]> {
  const samples: Sample[] = [];
  for await (const row of readJsonl(samplesPath)) samples.push(row as Sample);
  if (samples.length === 0) throw new RubricateError("BAD_INPUT", `no samples in ${samplesPath}`);
  return samples;
}

/** `--hacks-only`: the check kinds' hacks without a judge; exit 4 when one passes, partial when one errs. */
async function runHacksOnly(rubric: Rubric, samples: Sample[], flags: ProbeFlags): Promise<number> {
  const interrupt = interruptSignal();
  let hacks: HackRun[];
  try {
    hacks = await runHacks(rubric, samples, { responseField: flags.responseField, signal: interrupt.signal });
  } catch (e) {
    if (e instanceof RubricateError && e.code === "ABORTED") return EXIT.interrupted;
    throw e;
  } finally {
    interrupt.dispose();
  }
  if (flags.json) writeJsonResult(flags.json, { rubric: { id: rubric.id, version: rubric.version }, samples: samples.length, hacks }, writeOutputFile);
  textOut(flags.json, (t) => process.stdout.write(t))(`probe ${rubric.id} (check hacks only): ${samples.length} sample(s)\n${hacksText(hacks)}\n`);
  if (hacks.some((h) => h.passed)) return EXIT_PROBE_FAILED;
  return hacks.some((h) => h.error) ? EXIT.partial : EXIT.ok;
}

/** A terminal table of the check hacks: one line per criterion and hack. */
function hacksText(runs: HackRun[]): string {
  const tallies = hackTally(runs);
  if (tallies.length === 0) return "check hacks: none apply (no code check of a kind with known hacks)";
  const width = Math.max(9, ...tallies.map((t) => t.criterion.length));
  const hackWidth = Math.max(4, ...tallies.map((t) => t.hack.length));
  const lines = tallies.map((t) => `${t.criterion.padEnd(width)}  ${t.hack.padEnd(hackWidth)}  ${`${t.passed}/${t.runs}`.padStart(5)}  ${t.passed > 0 ? "PASSES" : "held"}${t.errors ? `  (${t.errors} errors)` : ""}`);
  const holes = tallies.filter((t) => t.passed > 0).length;
  return [`${"criterion".padEnd(width)}  ${"hack".padEnd(hackWidth)}  passed  outcome`, ...lines, `check hacks passed: ${holes} of ${tallies.length}`].join("\n");
}

/** A terminal table: one line per attack, worst first, then the number of findings. */
function summaryText(result: ProbeResult): string {
  const rows = [...result.attacks].sort((a, b) => (b.meanReward ?? -1) - (a.meanReward ?? -1));
  const width = Math.max(6, ...rows.map((r) => r.id.length));
  const scored = rows.some((a) => a.deservesZero && a.meanReward !== null);
  const lines = rows.map((a) => {
    // An attack whose responses got no reward (a judge that did not answer) neither won nor held.
    const mark = !a.deservesZero ? "control" : a.meanReward === null ? "no reward" : result.flagged.includes(a.id) ? "WINS" : "held";
    const reward = a.meanReward === null ? "   —  " : a.meanReward.toFixed(3);
    const iso = a.isolationHolds === false ? "  isolation BROKEN" : "";
    return `${a.id.padEnd(width)}  ${reward}  ${mark}${a.errors ? `  (${a.errors} errors)` : ""}${iso}`;
  });
  return [`probe ${result.rubric.id}: ${result.samples} sample(s), ${result.runs.length} responses`, `${"attack".padEnd(width)}  reward  outcome`, ...lines, `worst mean reward (deserving zero): ${scored ? result.worstReward.toFixed(3) : "— (no attack was scored)"}; findings: ${result.findings.length}`].join("\n");
}
