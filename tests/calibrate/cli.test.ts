import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import { describe, expect, it, vi } from "vitest";
import { type CalibrateFlags, computeCalibration, register, runCalibrate } from "../../src/cli/commands/calibrate.js";
import { packagedDatasetsDir } from "../../src/calibrate/datasets.js";
import { isRubricateError } from "../../src/errors.js";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";
import { tempDir, writeJudgeFile } from "../helpers/cli.js";

const datasets = packagedDatasetsDir();
const base: CalibrateFlags = { verdicts: [], judge: [], storedJudge: [], resamples: 100 };

async function parse(args: string[]): Promise<CalibrateFlags> {
  let flags: CalibrateFlags | undefined;
  const program = new Command("rubricate").exitOverride();
  register(program);
  program.commands[0].action((f: CalibrateFlags) => {
    flags = f;
  });
  await program.parseAsync(["node", "rubricate", "calibrate", ...args]);
  return flags as CalibrateFlags;
}

describe("rubricate calibrate: options", () => {
  it("collects repeated --verdicts and --judge, parses numbers", async () => {
    const f = await parse(["--labels", "l.jsonl", "--verdicts", "a.jsonl", "--verdicts", "b=b.jsonl", "--seed", "3", "--resamples", "50", "--report", "r.html"]);
    expect(f.verdicts).toEqual(["a.jsonl", "b=b.jsonl"]);
    expect(f.seed).toBe(3);
    expect(f.resamples).toBe(50);
    expect(f.report).toBe("r.html");
    expect(f.judge).toEqual([]);
  });
});

describe("rubricate calibrate: files", () => {
  const dir = tempDir("cal-cli-");
  const labels = join(dir, "labels.csv");
  writeFileSync(labels, "id,criterion,label,annotator\ns1,c,yes,x\ns1,c,yes,y\ns2,c,no,x\ns2,c,no,y\ns3,c,yes,x\ns3,c,no,y\n");
  const line = (id: string, status: string) => JSON.stringify({ id, reward: null, verdicts: [{ id: "c", status, reasoning: `r-${id}` }], usage: { costUsd: 0.01 } });
  writeFileSync(join(dir, "a.jsonl"), [line("s1", "met"), line("s2", "unmet"), line("s3", "met")].join("\n"));
  writeFileSync(join(dir, "b.jsonl"), [line("s1", "unmet"), line("s2", "met"), line("s3", "met")].join("\n"));

  it("calibrates every verdicts file and writes markdown, HTML and JSON", async () => {
    let printed = "";
    const flags = { ...base, labels, verdicts: [join(dir, "a.jsonl"), `bee=${join(dir, "b.jsonl")}`], report: join(dir, "r.html"), markdown: join(dir, "r.md"), json: join(dir, "r.json") };
    expect(await runCalibrate(flags, (t) => (printed += t))).toBe(0);
    expect(printed).toContain("## Ranking");
    expect(printed).toContain("| 1 | a |");
    expect(printed).toContain("bee");
    expect(readFileSync(join(dir, "r.md"), "utf8")).toBe(printed);
    expect(readFileSync(join(dir, "r.html"), "utf8")).toContain("<!DOCTYPE html>");
    const json = JSON.parse(readFileSync(join(dir, "r.json"), "utf8"));
    expect(json.results).toHaveLength(2);
    expect(json.results[0].criteria[0].humanTies).toBe(1);
    expect(json.results[0].costUsd).toBeCloseTo(0.03, 12);
  });
  // A report of "—" cells with exit 0 before: the labels' criterion is "C", the verdicts' "c".
  it("refuses verdicts that no label meets, naming a label and a verdict to compare", async () => {
    const other = join(dir, "other-case.csv");
    writeFileSync(other, "id,criterion,label\ns1,C,yes\ns2,C,no\n");
    const e = await runCalibrate({ ...base, labels: other, verdicts: [join(dir, "a.jsonl")] }, () => {}).catch((x: unknown) => x);
    expect(isRubricateError(e) && e.code).toBe("BAD_INPUT");
    expect((e as Error).message).toBe(`no label of ${other} meets a verdict of a: labels join verdicts on sample id and criterion id, exactly (labels: 2, e.g. sample "s1", criterion "C"; verdicts: 3, e.g. sample "s1", criterion "c")`);
  });
  it("--json - puts the JSON on stdout and the text report on stderr (one meaning of --json)", async () => {
    const stdout: string[] = [];
    const stderr: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((c: string | Uint8Array) => (stdout.push(String(c)), true));
    vi.spyOn(process.stderr, "write").mockImplementation((c: string | Uint8Array) => (stderr.push(String(c)), true));
    let printed = "";
    try {
      expect(await runCalibrate({ ...base, labels, verdicts: [join(dir, "a.jsonl")], json: "-" }, (t) => (printed += t))).toBe(0);
    } finally {
      vi.restoreAllMocks();
    }
    expect(printed).toBe("");
    expect(JSON.parse(stdout.join("")).results).toHaveLength(1);
    expect(stderr.join("")).toContain("## Judge: a");
  });
  it("--compare: B − A per criterion, split by kind from the rubric's points", async () => {
    const rubric = join(dir, "rubric.yaml");
    writeFileSync(rubric, "id: r\ninputs: [response]\ncriteria:\n  - id: c\n    question: Does the response state a wrong dose?\n    points: -2\n  - id: d\n    question: Does the response name a source?\n    points: 1\n");
    let printed = "";
    const flags = { ...base, labels, rubric, compare: true, verdicts: [`old=${join(dir, "a.jsonl")}`, `new=${join(dir, "b.jsonl")}`] };
    expect(await runCalibrate(flags, (t) => (printed += t))).toBe(0);
    expect(printed).toContain("## Judge comparison: B = new vs A = old");
    // s1 (yes) and s2 (no): a right, b wrong; s3 tied annotators, left out.
    expect(printed).toMatch(/\| pitfall \| pitfall \| 2 \| 100\.0 \| 0\.0 \| -100\.0/);
    await expect(computeCalibration({ ...base, labels, compare: true, verdicts: [join(dir, "a.jsonl")] })).rejects.toThrow(/--compare needs exactly two judges/);
  });

  it("--write-thresholds writes the rubric with each criterion's suggested threshold, comments kept", async () => {
    const sub = tempDir("cal-thr-");
    const lab = join(sub, "labels.jsonl");
    // Humans say yes for s1..s3; the judge's P(yes) separates them best between 0.4 and 0.6.
    const ps = [0.9, 0.7, 0.6, 0.4, 0.3, 0.1];
    writeFileSync(lab, ps.map((_, i) => JSON.stringify({ id: `s${i + 1}`, criterion: "c", label: i < 3 })).join("\n"));
    const res = join(sub, "v.jsonl");
    writeFileSync(res, ps.map((p, i) => JSON.stringify({ id: `s${i + 1}`, reward: null, verdicts: [{ id: "c", status: p >= 0.5 ? "met" : "unmet", probability: p }] })).join("\n"));
    const rubric = join(sub, "r.yaml");
    writeFileSync(rubric, "id: r\ninputs: [response]\ncriteria:\n  # the experts' line\n  - id: c\n    question: Does the response name a source?\n");
    const out = join(sub, "r.thresholds.yaml");
    expect(await runCalibrate({ ...base, labels: lab, rubric, verdicts: [res], writeThresholds: out, quiet: true })).toBe(0);
    const written = readFileSync(out, "utf8");
    expect(written).toContain("# the experts' line");
    const { parseRubric } = await import("../../src/rubric/load.js");
    const t = parseRubric(written).criteria[0].threshold!;
    expect(t).toBeGreaterThan(0.4);
    expect(t).toBeLessThanOrEqual(0.6);
    await expect(runCalibrate({ ...base, labels: lab, verdicts: [res], writeThresholds: out, quiet: true })).rejects.toThrow(/needs --rubric/);
  });

  it("--compare on stored LLMBar judges shows the rules' gain", async () => {
    const run = await computeCalibration({ ...base, compare: true, dataset: "llmbar:neighbor", storedJudge: ["gpt-4-vanilla-norules", "gpt-4-vanilla"], datasetsDir: join(import.meta.dirname, "..", "..", "datasets") });
    expect(run.comparison!.groups.at(-1)!.n).toBe(134);
    expect(run.comparison!.groups.at(-1)!.delta.value).toBeGreaterThan(0.1);
  });

  it("refuses a run without verdicts or a judge, and --judge without --rubric", async () => {
    await expect(computeCalibration({ ...base, labels })).rejects.toThrow(/--verdicts/);
    await expect(computeCalibration({ ...base, labels, judge: ["j.yaml"] })).rejects.toThrow(/--judge needs --rubric/);
    await expect(computeCalibration({ ...base })).rejects.toSatisfy((e) => isRubricateError(e, "BAD_INPUT"));
  });
});

describe("rubricate calibrate --dataset", () => {
  it("evaluates stored LLMBar verdicts, with pairwise agreement", async () => {
    const run = await computeCalibration({ ...base, dataset: "llmbar:natural", storedJudge: ["gpt-4-vanilla"], datasetsDir: datasets });
    expect(run.results).toHaveLength(1);
    expect(run.results[0].overall.n).toBe(100);
    expect(run.results[0].overall.confusion).toEqual({ tp: 40, fp: 3, tn: 55, fn: 2 });
    expect(run.pairwise[0].summary.bothOrders).toBe(true);
    expect(run.markdown).toContain("Pairwise agreement");
  });
  it("joins several subsets and defaults to the judges they all have", async () => {
    const run = await computeCalibration({ ...base, dataset: "llmbar:natural,mt-bench", datasetsDir: datasets });
    // mt-bench stores only the vanilla-norules and metrics-reference strategies (of four judges); natural stores more.
    expect(run.results.map((r) => r.judge.split(" ")[0]).sort()).toEqual([
      "chatgpt-metrics-reference", "chatgpt-vanilla-norules", "gpt-4-metrics-reference", "gpt-4-vanilla-norules",
      "llama2-metrics-reference", "llama2-vanilla-norules", "palm2-metrics-reference", "palm2-vanilla-norules",
    ]);
    expect(run.results[0].criteria.map((c) => c.criterion)).toEqual(["output_1-better@mt-bench", "output_1-better@natural"]);
  });
  it("PandaLM with annotator agreement; bad dataset names are BAD_INPUT", async () => {
    const run = await computeCalibration({ ...base, dataset: "pandalm", storedJudge: ["pandalm-7b"], datasetsDir: datasets });
    expect(run.results[0].overall.humanAgreement?.annotators).toHaveLength(3);
    await expect(computeCalibration({ ...base, dataset: "llmbar:nope", datasetsDir: datasets })).rejects.toThrow(/unknown LLMBar subset/);
    await expect(computeCalibration({ ...base, dataset: "other", datasetsDir: datasets })).rejects.toThrow(/--dataset must be/);
  });
  it("--unreadable tie applies PandaLM's convention: GPT-3.5's published macro F1, no errors", async () => {
    const run = await computeCalibration({ ...base, dataset: "pandalm", storedJudge: ["gpt-3.5-turbo"], unreadable: "tie" });
    expect(run.results[0].overall.errors).toBe(0);
    expect(run.pairwise[0].summary.macro.f1).toBeCloseTo(0.5755, 4);
    const strict = await computeCalibration({ ...base, dataset: "pandalm", storedJudge: ["gpt-3.5-turbo"] });
    expect(strict.results[0].overall.errors).toBe(25);
    await expect(computeCalibration({ ...base, dataset: "pandalm", unreadable: "no" })).rejects.toThrow(/--unreadable must be error or tie/);
    await expect(computeCalibration({ ...base, dataset: "llmbar:natural", unreadable: "tie" })).rejects.toThrow(/pandalm only/);
  });
});

describe("rubricate calibrate --judge with a judge that does not answer", () => {
  it("exits 3 and says how many labelled verdicts are errors (exit 0 before, the n = 0 table looking like a result)", async () => {
    const server = await startOpenAIServer({ respond: () => "I think no." });
    const dir = tempDir("rubricate-calibrate-");
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    vi.stubEnv("RUBRICATE_TEST_KEY", "k");
    try {
      const rubric = join(dir, "r.yaml");
      writeFileSync(rubric, "id: r\nversion: 1\ninputs: [response]\ncriteria:\n  - id: polite\n    question: Is the response polite?\n");
      const labels = join(dir, "labels.jsonl");
      writeFileSync(labels, ['{"sample": {"id": 1, "response": "Thanks!"}, "criterion": "polite", "label": true}', '{"sample": {"id": 2, "response": "Go away."}, "criterion": "polite", "label": false}'].join("\n"));
      const judge = writeJudgeFile(dir, server.url, { max_retries: 0 });
      const code = await runCalibrate({ ...base, labels, rubric, judge: [judge], cache: false, quiet: true });
      expect(code).toBe(3);
      expect(stderr.mock.calls.map((c) => String(c[0])).join("")).toContain(`rubricate: judge ${judge}: 2 labelled verdict(s) are errors, left out of the metrics\n`);
    } finally {
      stderr.mockRestore();
      vi.unstubAllEnvs();
      await server.close();
    }
  });
});
