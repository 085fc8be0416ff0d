/**
 * Losing nothing on bad input (issue 16, item 13): bad JSONL lines are reported with their line
 * numbers and keep their place as result lines without a reward; good lines are scored; the exit
 * code says some failed; a previous results file is never replaced by a failed run.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsonlEntries } from "../../src/config/jsonl.js";
import { cli as cliProcess, cliInProcess as cli, jsonLines } from "./helpers.js";
import { cliEntry, ROOT, tempDir, writeJudgeFile } from "../helpers/cli.js";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";

const RUBRIC = "rubrics/structured-output.yaml";
const dir = tempDir("rubricate-bad-input-");

const good = (id: number) => JSON.stringify({ id, response: JSON.stringify({ name: "Ada", email: "ada@example.org" }) });

describe("score with bad lines", () => {
  it("scores every good line, reports every bad one by line number, keeps line k as result k, exits 3", async () => {
    const input = join(dir, "mixed.jsonl");
    writeFileSync(input, [good(1), "{oops", good(2), "[1]", "", good(3), '"text"'].join("\n") + "\n");
    const out = join(dir, "mixed-out.jsonl");
    const r = await cli(["score", RUBRIC, input, "-o", out, "-q"]);
    expect(r.code).toBe(3);
    for (const where of ["2:2", "4:1", "7:1"]) expect(r.stderr).toContain(`${input}:${where}: `);
    expect(r.stderr).toContain("3 input line(s) are not samples");
    const lines = jsonLines(readFileSync(out, "utf8"));
    expect(lines.map((l) => l.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(lines.map((l) => l.id ?? null)).toEqual([1, null, 2, null, 3, null]);
    expect(lines.filter((l) => l.reward === null).map((l) => (l.errors as { code: string }[])[0].code)).toEqual(["BAD_INPUT", "BAD_INPUT", "BAD_INPUT"]);
    expect((lines[1].errors as { message: string }[])[0].message).toContain(`${input}:2:2: invalid JSON: Expected property name or '}'`);
    expect(lines.filter((l) => typeof l.reward === "number")).toHaveLength(3);
  });

  it("lists the first 20 bad lines and counts the rest", async () => {
    const input = join(dir, "many.jsonl");
    writeFileSync(input, [good(0), ...Array.from({ length: 25 }, () => "nope")].join("\n"));
    const r = await cli(["score", RUBRIC, input, "-q"]);
    expect(r.code).toBe(3);
    expect(r.stderr.match(/: invalid JSON/g)).toHaveLength(20);
    expect(r.stderr).toContain("… and 5 more bad line(s)");
    expect(jsonLines(r.stdout)).toHaveLength(26);
  });

  it("accepts a UTF-8 byte order mark", async () => {
    const input = join(dir, "bom.jsonl");
    writeFileSync(input, `\uFEFF${good(1)}\n${good(2)}\n`);
    const r = await cli(["score", RUBRIC, input, "-q"]);
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout).map((l) => l.id)).toEqual([1, 2]);
  });

  // Each was scored before: the Latin-1 text as "caf\uFFFD", the two ids as one rounded number.
  it("a line saved as Latin-1 and an id past 2^53 are bad lines at file:line:col, kept in place without a reward", async () => {
    const input = join(dir, "latin1.jsonl");
    const latin1 = Buffer.concat([Buffer.from('{"id": 2, "response": "caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    writeFileSync(input, Buffer.concat([Buffer.from(`${good(1)}\n`), latin1, Buffer.from('\n{"id": 1234567890123456789, "response": "x"}\n')]));
    const r = await cli(["score", RUBRIC, input, "-q"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`${input}:2:27: byte 0xE9 is not UTF-8 text`);
    expect(r.stderr).toContain(`${input}:3:2: id 1234567890123456800 is a whole number past 2^53`);
    expect(jsonLines(r.stdout).map((l) => l.reward === null)).toEqual([false, true, true]);
  });

  it("a rubric saved as Latin-1 is refused at file:line:col before anything is scored", async () => {
    const rubric = join(dir, "latin1.yaml");
    writeFileSync(rubric, Buffer.concat([Buffer.from("id: cafe\ncriteria:\n  - id: names\n    question: Does it name the caf"), Buffer.from([0xe9]), Buffer.from("?\n")]));
    const r = await cli(["validate", rubric]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${rubric}:4:35: byte 0xE9 is not UTF-8 text`);
  });

  it("a previous complete results file is not replaced by a failed run", async () => {
    const out = join(dir, "kept.jsonl");
    writeFileSync(out, "previous complete results\n");
    // The samples "file" is a folder: the run fails after the output was opened.
    const r = await cli(["score", RUBRIC, dir, "-o", out, "-q"]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(readFileSync(out, "utf8")).toBe("previous complete results\n");
    expect(r.stderr).toContain(`${out}.partial`);
    expect(existsSync(`${out}.partial`)).toBe(true);
  });
});

describe("jsonlEntries", () => {
  it("a line over the limit is a bad line, skipped without being held, and the reader goes on", async () => {
    const input = join(dir, "long.jsonl");
    writeFileSync(input, `${good(1)}\n{"response": "${"x".repeat(5000)}"}\n${good(2)}`);
    const entries = [];
    for await (const e of jsonlEntries(input, { maxLineBytes: 1000 })) entries.push(e);
    expect(entries.map((e) => ("bad" in e ? `bad ${e.line}` : `ok ${e.line}`))).toEqual(["ok 1", "bad 2", "ok 3"]);
    const bad = entries[1] as { bad: { message: string } };
    expect(bad.bad.message).toMatch(/line is 50\d\d bytes, over the 1000-byte limit/);
  });

  it("splits lines across chunk boundaries and CRLF endings the same way", async () => {
    const input = join(dir, "crlf.jsonl");
    const rows = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ i, pad: "é".repeat(i % 50) }));
    writeFileSync(input, rows.join("\r\n"));
    const seen: number[] = [];
    for await (const e of jsonlEntries(input)) if ("value" in e) seen.push(e.value.i as number);
    expect(seen).toEqual(rows.map((_, i) => i));
  });
});

describe("bad option values", () => {
  // Every option parser of every command: a value it refuses is a usage error (exit 2) in one
  // line that names the option, never an "unexpected error" with a stack trace.
  const cases: [string, string[]][] = [
    ["calibrate --seed", ["calibrate", "--seed", "-1"]],
    // Integers past 2^53 − 1 (accepted before, as a number other than the one typed).
    ["score -c", ["score", RUBRIC, "x.jsonl", "-c", "99999999999999999999"]],
    ["serve --max-connections", ["serve", RUBRIC, "--max-connections", "1e99"]],
    ["calibrate --seed (huge)", ["calibrate", "--seed", "1e300"]],
    // Read after parsing before, as BAD_INPUT (exit 1).
    ["score --shard", ["score", RUBRIC, "x.jsonl", "--shard", "3/2"]],
    ["score --length-penalty", ["score", RUBRIC, "x.jsonl", "--group-by", "prompt", "--length-penalty", "abc"]],
    ["distill --min-reward", ["distill", "x.jsonl", "--min-reward", "abc"]],
    ["distill --max-chars", ["distill", "x.jsonl", "--max-chars", "-3"]],
    ["distill --near-threshold", ["distill", "x.jsonl", "--near-threshold", "much"]],
    // Outside their range: refused deep in the run before (BAD_INPUT, exit 1).
    ["distill --top-fraction (range)", ["distill", "x.jsonl", "--top-fraction", "1.5"]],
    ["distill --near-threshold (range)", ["distill", "x.jsonl", "--near-threshold", "1"]],
    ["optimize --seed", ["optimize", "question", "--rubric", RUBRIC, "--criterion", "c", "-l", "x.jsonl", "-r", "openai-small", "--seed", "1.5"]],
    ["optimize --val-fraction", ["optimize", "question", "--rubric", RUBRIC, "--criterion", "c", "-l", "x.jsonl", "-r", "openai-small", "--val-fraction", "2"]],
    ["eval --pass-threshold", ["eval", "env.yaml", "-m", "openai:gpt-4.1-mini", "--pass-threshold", "1.5"]],
    ["serve --fallback-reward", ["serve", RUBRIC, "--fallback-reward", "none"]],
    ["serve --max-body", ["serve", RUBRIC, "--max-body", "huge"]],
    ["serve --port", ["serve", RUBRIC, "--port", "70000"]],
    ["hub push --step", ["hub", "push", "x.jsonl", "--hub", "http://127.0.0.1:9", "--step", "-1"]],
    ["hub push --pass-threshold", ["hub", "push", "x.jsonl", "--hub", "http://127.0.0.1:9", "--pass-threshold", "abc"]],
    ["env filter --pass-threshold", ["env", "filter", "env.yaml", "-m", "openai:gpt-4.1-mini", "--pass-threshold", "2"]],
    ["hub serve --body-limit", ["hub", "serve", "--registry", "http://127.0.0.1:9", "--body-limit", "lots"]],
    ["hub serve --writes-per-minute", ["hub", "serve", "--registry", "http://127.0.0.1:9", "--writes-per-minute", "-5"]],
    ["hub serve --unknown-tokens-per-minute", ["hub", "serve", "--registry", "http://127.0.0.1:9", "--unknown-tokens-per-minute", "ten"]],
    ["hub serve --client-ip-header", ["hub", "serve", "--registry", "http://127.0.0.1:9", "--client-ip-header", "x forwarded for"]],
    // A hub or registry that is no http(s) URL: refused before any rollout is paid (HUB_DOWN after the run, or a hub serving nothing, before).
    ["eval --push", ["eval", "env.yaml", "-m", "openai:gpt-4.1-mini", "--push", "hub.example.org"]],
    ["hub push --hub", ["hub", "push", "x.jsonl", "--hub", "notaurl"]],
    ["hub serve --registry", ["hub", "serve", "--registry", "http://127.0.0.1:9", "--registry", "registry.example.org"]],
    ["env push --registry", ["env", "push", "--registry", "ftp://registry.example.org"]],
    ["env push --hub", ["env", "push", "--hub", "localhost:8080"]],
    ["env list --registry", ["env", "list", "--registry", "notaurl"]],
    ["env search --registry", ["env", "search", "q", "--registry", "notaurl"]],
    ["env info --registry", ["env", "info", "p", "--registry", "notaurl"]],
    // An empty path (an unset variable): a throwaway cache before (every answer paid again next run), stdout for -o.
    ["score --cache (empty)", ["score", RUBRIC, "x.jsonl", "--cache", ""]],
    ["score -o (empty)", ["score", RUBRIC, "x.jsonl", "-o", " "]],
    ["distill --json (empty)", ["distill", "x.jsonl", "--json", ""]],
    ["merge --cache (empty)", ["merge", "x.jsonl", "--cache", "", "--from-cache", "y.db"]],
  ];
  // An option of fixed values given another: exit 2 listing them, as `--errors bogus` ("BAD_INPUT", exit 1, before).
  const choices: [string, string[]][] = [
    ["distill --format", ["distill", "x.jsonl", "--format", "sharegpt"]],
    ["distill --dedup", ["distill", "x.jsonl", "--dedup", "fuzzy"]],
    ["distill --dedup-on", ["distill", "x.jsonl", "--dedup-on", "prompt"]],
    ["score --advantage", ["score", RUBRIC, "x.jsonl", "--group-by", "prompt", "--advantage", "std"]],
    ["calibrate --unreadable", ["calibrate", "--dataset", "pandalm", "--unreadable", "maybe"]],
    ["env push --bump", ["env", "push", "--bump", "huge"]],
    ["env push --access", ["env", "push", "--access", "private"]],
  ];
  it.each(choices)("%s: exit 2 listing the choices, no stack", async (_name, args) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: option '[^']+' argument '[^']*' is invalid\. Allowed choices are /);
    expect(r.stderr).not.toMatch(/unexpected error|\n\s+at /);
  });

  it("score --pass-k 0 is a usage error too (exit 2)", async () => {
    const r = await cli(["score", RUBRIC, "x.jsonl", "--group-by", "prompt", "--pass-k", "1,0"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: option '--pass-k <list>' argument '1,0' is invalid\. --pass-k takes positive integers/);
  });

  it.each(cases)("%s: exit 2, one line naming the option, no stack", async (_name, args) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: option '[^']+' argument '[^']*' is invalid\. expected /);
    expect(r.stderr).not.toMatch(/unexpected error|\n\s+at /);
  });
});

describe("contradictory options", () => {
  // Accepted before (ignored, or found out only after the run had paid): now exit 2 in one line
  // naming the options, before anything is read, loaded or called.
  const cases: [string, string[], string][] = [
    ["distill --min-chars above --max-chars", ["distill", "x.jsonl", "--min-chars", "5", "--max-chars", "2"], "--min-chars 5 is above --max-chars 2: every response would be dropped"],
    ["distill --best-of with pairs", ["distill", "x.jsonl", "--format", "dpo", "--best-of", "2"], "--best-of does not apply to --format dpo (each prompt gives one pair: its best against its worst)"],
    ["distill --rescore without --rubric", ["distill", "x.jsonl", "--rescore"], "--rescore needs --rubric"],
    ["distill --checks without --rubric", ["distill", "x.jsonl", "--checks", "env.yaml"], "--checks are the custom checks --rubric names: pass --rubric too"],
    ["distill --model without --env", ["distill", "x.jsonl", "--model", "openai:gpt-4.1-mini"], "--model and --tasks choose the teacher and the tasks of --env: pass --env <env> too, or drop them"],
    ["distill --env without --model", ["distill", "--env", "env.yaml"], "--env needs --model <teacher>"],
    // Options with a default, refused only when typed without their partner (ignored before, exit 1 on the missing x.jsonl).
    ["distill --near-threshold without --dedup near", ["distill", "x.jsonl", "--near-threshold", "0.9"], "--near-threshold tunes --dedup near: pass --dedup near too, or drop it"],
    ["distill --near-threshold and --ngram with --dedup exact", ["distill", "x.jsonl", "--dedup", "exact", "--ngram", "3", "--near-threshold", "0.9"], "--near-threshold and --ngram tune --dedup near: pass --dedup near too, or drop them"],
    ["distill --rollouts without --env", ["distill", "x.jsonl", "--rollouts", "4"], "--rollouts is how many times the teacher of --env plays each task: pass --env <env> too, or drop it"],
    ["distill --chunk-size without --queue", ["distill", "x.jsonl", "--chunk-size", "10"], "--chunk-size cuts the input for --queue: pass --queue <url> too, or drop it"],
    ["distill --queue without --rubric", ["distill", "x.jsonl", "--queue", "redis://127.0.0.1:9/0", "-o", "o.jsonl"], "--queue scores the input with --rubric: give the rubric"],
    ["distill --json - onto the rows", ["distill", "x.jsonl", "--json", "-"], "--json - needs stdout, which holds the exported rows: give -o <file>, or --json <file>"],
    ["score --resume without -o", ["score", RUBRIC, "x.jsonl", "--resume", "--batch"], "--resume continues the results file of an interrupted run: give it with -o <file>"],
    ["score --batch with --queue", ["score", RUBRIC, "x.jsonl", "--batch", "--queue", "redis://127.0.0.1:9/0", "-o", "o.jsonl"], "--queue and --batch do not combine: fill the cache with `score --batch` first, then queue the run (it finds every answer cached)"],
    ["score --batch on stdin", ["score", RUBRIC, "-", "--batch"], "--batch reads the samples several times: give a file, not stdin"],
    ["score --batch with --no-cache", ["score", RUBRIC, "x.jsonl", "--batch", "--no-cache"], "--batch keeps its answers in the cache for the scoring pass: drop --no-cache (every answer would be paid for in the batch, thrown away, then paid again live)"],
    ["score --pass-k without --group-by", ["score", RUBRIC, "x.jsonl", "--pass-k", "2"], "--advantage, --pass-k and --length-penalty need --group-by <field>"],
    ["score --length-field without --length-penalty", ["score", RUBRIC, "x.jsonl", "--group-by", "prompt", "--length-field", "n"], "--length-field gives --length-penalty its lengths: pass --length-penalty <weight> too"],
    ["score --group-by with --shard", ["score", RUBRIC, "x.jsonl", "--group-by", "prompt", "--shard", "1/2"], "--group-by needs every response of a group: do not combine it with --shard"],
    ["score --chunk-size without --queue", ["score", RUBRIC, "x.jsonl", "--chunk-size", "5"], "--chunk-size cuts the input for --queue: pass --queue <url> too, or drop it"],
    ["eval --step without --push", ["eval", "env.yaml", "-m", "openai:gpt-4.1-mini", "--step", "3"], "--step and --series label results for a hub: pass --push <hub> too"],
    ["eval --chunk-size without --queue", ["eval", "env.yaml", "-m", "openai:gpt-4.1-mini", "--chunk-size", "5"], "--chunk-size cuts the rollouts for --queue: pass --queue <url> too, or drop it"],
    ["calibrate --compare with one judge", ["calibrate", "--labels", "l.jsonl", "--verdicts", "a.jsonl", "--compare"], "--compare needs exactly two judges (A then B); the options give 1"],
    ["calibrate --compare with three stored judges", ["calibrate", "--dataset", "pandalm", "--stored-judge", "a", "--stored-judge", "b", "--stored-judge", "c", "--compare"], "--compare needs exactly two judges (A then B); the options give 3"],
    ["calibrate --write-thresholds without --rubric", ["calibrate", "--labels", "l.jsonl", "--verdicts", "a.jsonl", "--write-thresholds", "t.yaml"], "--write-thresholds needs --rubric and exactly one judge"],
    ["calibrate --write-thresholds with two judges", ["calibrate", "--labels", "l.jsonl", "--verdicts", "a.jsonl", "--verdicts", "b.jsonl", "--rubric", RUBRIC, "--write-thresholds", "t.yaml"], "--write-thresholds needs --rubric and exactly one judge"],
    ["calibrate --judge without --rubric", ["calibrate", "--labels", "l.jsonl", "--judge", "j.yaml"], "--judge needs --rubric: the rubric whose criteria the labels answer"],
    ["calibrate --stored-judge without --dataset", ["calibrate", "--labels", "l.jsonl", "--verdicts", "a.jsonl", "--stored-judge", "gpt-4-vanilla"], "--stored-judge picks the stored judges of --dataset: pass --dataset <name> too"],
    ["calibrate --dataset with --labels", ["calibrate", "--dataset", "pandalm", "--labels", "l.jsonl"], "--dataset evaluates stored verdicts: do not combine it with --labels, --verdicts or --judge"],
    ["serve --rubric with --env", ["serve", "--rubric", RUBRIC, "--env", "env.yaml"], "give --rubric or --env, not both: an environment brings its own rubric"],
    ["serve --allow-sample-questions with --no-sample-criteria", ["serve", "--rubric", RUBRIC, "--allow-sample-questions", "--no-sample-criteria"], "--allow-sample-questions lets samples add questions, --no-sample-criteria refuses every sample criterion: pick one"],
    ["serve --unsafe-no-sandbox without --env", ["serve", "--rubric", RUBRIC, "--unsafe-no-sandbox"], "--unsafe-no-sandbox and --allow-policy-host apply to the sessions and rollouts of --env: pass --env <env> too, or drop them"],
    ["serve --max-group without --env", ["serve", "--rubric", RUBRIC, "--max-group", "8"], "--max-group applies to the sessions and rollouts of --env: pass --env <env> too, or drop it"],
    ["serve --max-sessions and --session-idle-ms without --env", ["serve", "--rubric", RUBRIC, "--max-sessions", "4", "--session-idle-ms", "1000"], "--max-sessions, --session-idle-ms apply to the sessions and rollouts of --env: pass --env <env> too, or drop them"],
    // A missing rubric: before, the contradiction went unseen and the run went on to load it (exit 1), or listened.
    ["serve --headers-timeout-ms above --request-timeout-ms", ["serve", "--rubric", "missing.yaml", "--headers-timeout-ms", "200000", "--request-timeout-ms", "100000"], "--headers-timeout-ms 200000 is above --request-timeout-ms 100000, which bounds it: lower --headers-timeout-ms or raise --request-timeout-ms"],
    ["serve --max-session-bytes above --max-sessions-bytes", ["serve", "--env", "missing.yaml", "--max-session-bytes", "1gb", "--max-sessions-bytes", "64mb"], "--max-session-bytes 1GB is above --max-sessions-bytes 64MB, which bounds it: lower --max-session-bytes or raise --max-sessions-bytes"],
    ["probe --hacks-only with a report", ["probe", RUBRIC, "x.jsonl", "--hacks-only", "--report", "r.html", "--attacks", "a.yaml"], "--hacks-only runs no attack and writes no report: drop --attacks, --report (or --hacks-only)"],
    ["merge --from-cache without --cache", ["merge", "a.jsonl", "--from-cache", "a.db"], "--cache and --from-cache go together: --cache <merged.db> --from-cache <shard.db…>"],
  ];
  it.each(cases)("%s: exit 2, one line naming the options", async (_name, args, said) => {
    // A --queue command ends its process a second after it returns (exitAfterQueuedRun): not this one.
    const r = await (args.includes("--queue") ? cliProcess(args) : cli(args));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`rubricate: ${said}\n`);
    expect(r.stdout).toBe("");
  });

  // Exit 1 (a BAD_INPUT line, as if the run had failed) before, once the rubric was loaded.
  const queued: [string, string[], string][] = [
    ["score --queue without -o", ["score", RUBRIC, "x.jsonl", "--queue", "redis://127.0.0.1:9/0"], "--queue writes results to a file it can resume: give -o <file>"],
    ["score --queue on stdin", ["score", RUBRIC, "-", "--queue", "redis://127.0.0.1:9/0", "-o", "o.jsonl"], "--queue reads the samples again when resumed: give a file, not stdin"],
    ["score --queue with --shard", ["score", RUBRIC, "x.jsonl", "--queue", "redis://127.0.0.1:9/0", "-o", "o.jsonl", "--shard", "1/2"], "--queue shares the work out itself: drop --shard"],
    ["score --queue with --unsafe-no-sandbox", ["score", RUBRIC, "x.jsonl", "--queue", "redis://127.0.0.1:9/0", "-o", "o.jsonl", "--unsafe-no-sandbox"], "--unsafe-no-sandbox is a worker's choice: start `rubricate worker --unsafe-no-sandbox` instead"],
  ];
  it.each(queued)("%s: exit 2, one line (exit 1 before)", async (_name, args, said) => {
    // A --queue command ends its process a second after it returns (exitAfterQueuedRun): not this one.
    const r = await cliProcess(args, { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`rubricate: ${said}\n`);
  });

  it("score with a judge file's mode: batch on stdin or with --no-cache: exit 2 naming the judge, before any call (exit 1, a BAD_INPUT line about --batch, before)", async () => {
    const work = mkdtempSync(join(dir, "batch-judge-"));
    const judge = writeJudgeFile(work, "http://127.0.0.1:9/v1", { mode: "batch", id: "night-judge" });
    const samples = join(work, "s.jsonl");
    writeFileSync(samples, `${good(1)}\n`);
    const env = { RUBRICATE_TEST_KEY: "sk-test-1234567890" };
    const onStdin = await cli(["score", RUBRIC, "-", "--judge", judge, "-q"], { env });
    expect(onStdin.code).toBe(2);
    expect(onStdin.stderr).toBe("rubricate: judge night-judge has mode: batch, which reads the samples several times: give a file, not stdin\n");
    const uncached = await cli(["score", RUBRIC, samples, "--judge", judge, "--no-cache", "-q"], { env });
    expect(uncached.code).toBe(2);
    expect(uncached.stderr).toBe("rubricate: judge night-judge has mode: batch, which keeps its answers in the cache for the scoring pass: drop --no-cache (every answer would be paid for in the batch, thrown away, then paid again live)\n");
  });

  it("calibrate --compare with the wrong number of judges is refused before the judge is asked (after, before)", async () => {
    const server = await startOpenAIServer({ respond: judgeResponder(() => true), recordBodies: false });
    try {
      const work = mkdtempSync(join(dir, "compare-"));
      const rubric = join(work, "asked.yaml");
      writeFileSync(rubric, "id: asked\nversion: 1\ninputs: [response]\ncriteria:\n  - id: polite\n    question: Is the response polite?\n");
      const labels = join(work, "labels.jsonl");
      writeFileSync(labels, `${JSON.stringify({ sample: { id: "s1", response: "Thank you!" }, criterion: "polite", label: true })}\n`);
      const r = await cli(["calibrate", "--labels", labels, "--judge", writeJudgeFile(work, server.url), "--rubric", rubric, "--compare", "--no-cache"], { env: { RUBRICATE_TEST_KEY: "sk-test-1234567890" } });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe("rubricate: --compare needs exactly two judges (A then B); the options give 1\n");
      expect(server.stats.requests).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe("a limit given past the default of the limit that bounds it", () => {
  // Silently (the request timeout raised; the session budget left above the total, so a session
  // past the total got a retryable 429 instead of its 413) before. The note comes before anything
  // loads: a missing rubric or environment ends these runs after it.
  it.each([
    ["serve --headers-timeout-ms alone", ["serve", "--rubric", "missing.yaml", "--headers-timeout-ms", "200000"], "--request-timeout-ms raised from its default 120000 to 200000: it bounds --headers-timeout-ms 200000"],
    ["serve --request-timeout-ms alone", ["serve", "--rubric", "missing.yaml", "--request-timeout-ms", "5000"], "--headers-timeout-ms lowered from its default 10000 to 5000: --request-timeout-ms 5000 bounds it"],
    ["serve --max-session-bytes alone", ["serve", "--env", "missing.yaml", "--max-session-bytes", "1gb"], "--max-sessions-bytes raised from its default 512MB to 1GB: it bounds --max-session-bytes 1GB"],
    ["serve --max-sessions-bytes alone", ["serve", "--env", "missing.yaml", "--max-sessions-bytes", "16mb"], "--max-session-bytes lowered from its default 32MB to 16MB: --max-sessions-bytes 16MB bounds it"],
  ])("%s: that default gives way, said in a note", async (_name, args, said) => {
    const r = await cli(args, { cwd: dir });
    expect(r.stderr.split("\n")[0]).toBe(`rubricate serve: note: ${said}`);
    expect(r.code).toBe(1);
  });
});

describe("merge with files that are not sorted results", () => {
  const result = (index: number, reward = 1) => JSON.stringify({ index, reward });
  it("a line without an index is named by file:line (no file or line before), exit 1, no stack", async () => {
    const a = join(dir, "shard-a.jsonl");
    const b = join(dir, "shard-b.jsonl");
    writeFileSync(a, [result(0), result(2)].join("\n") + "\n");
    writeFileSync(b, [result(1), "", '{"id": "s3", "response": "hi"}'].join("\n") + "\n");
    const r = await cli(["merge", a, b, "-o", join(dir, "merged.jsonl")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`rubricate: BAD_INPUT: ${b}:3: no numeric \`index\``);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("an unsorted file and a conflicting duplicate name their files", async () => {
    const a = join(dir, "sorted.jsonl");
    const b = join(dir, "unsorted.jsonl");
    writeFileSync(a, [result(0), result(1)].join("\n") + "\n");
    writeFileSync(b, [result(3), result(2)].join("\n") + "\n");
    const unsorted = await cli(["merge", a, b]);
    expect(unsorted.code).toBe(1);
    expect(unsorted.stderr).toContain(`${b} is not sorted by index (2 after 3)`);
    const c = join(dir, "conflict.jsonl");
    writeFileSync(c, [result(1, 0)].join("\n") + "\n");
    const conflict = await cli(["merge", a, c]);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain(`two results for sample index 1 disagree (${a} and ${c})`);
  });
});

describe("score with a cache it cannot open", () => {
  it("says so in rubricate's one line, not as a node process warning (\"(node:1234) [CACHE] RubricateWarning: … Use `node --trace-warnings …`\" before)", async () => {
    const server = await startOpenAIServer({ respond: judgeResponder(() => true), recordBodies: false });
    try {
      const rubric = join(dir, "asked.yaml");
      writeFileSync(rubric, "id: asked\nversion: 1\ninputs: [response]\ncriteria:\n  - id: polite\n    question: Is the response polite?\n");
      const samples = join(dir, "asked.jsonl");
      writeFileSync(samples, `${JSON.stringify({ response: "Thank you!" })}\n`);
      const notAFolder = join(dir, "not-a-folder.txt");
      writeFileSync(notAFolder, "x\n");
      const r = await cli(["score", rubric, samples, "-j", writeJudgeFile(dir, server.url), "--cache", join(notAFolder, "c.db"), "-q"], { env: { RUBRICATE_TEST_KEY: "sk-test-1234567890" } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe(`rubricate: warning: CACHE: cannot open cache ${join(notAFolder, "c.db")} (EEXIST: file already exists, mkdir '${notAFolder}'); running without a persistent cache\n`);
    } finally {
      await server.close();
    }
  });
});

describe("an output path the run could not write at its end", () => {
  // Each paid command checks its output files before its first call: a report path that is a
  // folder (or under a file) used to fail only once everything was paid for ("EISDIR" after the run).
  it("is refused before any judge call, exit 2 naming the option, in every command that pays", async () => {
    const server = await startOpenAIServer({ respond: judgeResponder(() => true), recordBodies: false });
    try {
      const work = join(dir, "outputs");
      mkdirSync(work);
      const rubric = join(work, "asked.yaml");
      writeFileSync(rubric, "id: asked\nversion: 1\ninputs: [prompt, response]\ncriteria:\n  - id: polite\n    question: Is the response polite?\n");
      const samples = join(work, "asked.jsonl");
      writeFileSync(samples, `${JSON.stringify({ id: "s1", prompt: "Hi?", response: "Thank you!" })}\n`);
      const labels = join(work, "labels.jsonl");
      writeFileSync(labels, `${JSON.stringify({ sample: { id: "s1", prompt: "Hi?", response: "Thank you!" }, criterion: "polite", label: true })}\n`);
      writeFileSync(join(work, "notes.md"), "Be polite.\n");
      const judge = writeJudgeFile(work, server.url);
      const tinyEnv = join(work, "env", "env.yaml");
      mkdirSync(dirname(tinyEnv));
      writeFileSync(tinyEnv, "id: tiny\ndataset: tasks.jsonl\nrubric:\n  id: r\n  criteria:\n    - id: polite\n      question: Is the response polite?\n");
      writeFileSync(join(work, "env", "tasks.jsonl"), `${JSON.stringify({ id: "a", inputs: { prompt: "say hi" } })}\n`);
      const notAFolder = join(work, "file.txt");
      writeFileSync(notAFolder, "x\n");
      const cases: [string, string[], string][] = [
        ["score --summary-json", ["score", rubric, samples, "-j", judge, "--summary-json", work, "-q"], `--summary-json ${work}: it is a folder`],
        ["score -o", ["score", rubric, samples, "-j", judge, "-o", join(notAFolder, "r.jsonl"), "-q"], `-o ${join(notAFolder, "r.jsonl")}: ${notAFolder} is not a folder`],
        ["distill --report", ["distill", samples, "--rubric", rubric, "-j", judge, "-o", join(work, "sft.jsonl"), "--report", work, "-q"], `--report ${work}: it is a folder`],
        ["probe --markdown", ["probe", rubric, samples, "-j", judge, "--markdown", work, "-q"], `--markdown ${work}: it is a folder`],
        ["flips --json", ["flips", samples, "--rubric", rubric, "-j", judge, "--json", work], `--json ${work}: it is a folder`],
        ["calibrate --report", ["calibrate", "--labels", labels, "--judge", judge, "--rubric", rubric, "--report", work, "-q"], `--report ${work}: it is a folder`],
        ["draft -o", ["draft", "-j", judge, "--notes", join(work, "notes.md"), "-o", work], `-o ${work}: it is a folder`],
        ["optimize question --markdown", ["optimize", "question", "--rubric", rubric, "--criterion", "polite", "-l", labels, "-r", judge, "-j", judge, "--markdown", work, "-q"], `--markdown ${work}: it is a folder`],
        ["env filter --json", ["env", "filter", tinyEnv, "-m", `openai-compatible:solver@${server.url}`, "-j", judge, "--json", work, "-q"], `--json ${work}: it is a folder`],
        ["eval --summary-md", ["eval", "examples/wordle/env.yaml", "-m", `openai-compatible:solver@${server.url}`, "-j", judge, "--out", join(work, "r.jsonl"), "--summary-md", work, "-q"], `--summary-md ${work}: it is a folder`],
      ];
      for (const [name, args, said] of cases) {
        // draft keeps no cache; every other command is told to keep none.
        const r = await cli(name.startsWith("draft") ? args : [...args, "--no-cache"], { env: { RUBRICATE_TEST_KEY: "sk-test-1234567890" } });
        expect(r.code, `${name}: ${r.stderr}`).toBe(2);
        expect(r.stderr, name).toBe(`rubricate: ${said}; the run would fail only after its work is done (and paid for)\n`);
      }
      expect(server.stats.requests).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("an output whose folders do not exist yet is written there (as -o always was), after the run", async () => {
    const input = join(dir, "sys.jsonl");
    writeFileSync(input, `${good(1)}\n`);
    const summary = join(dir, "not", "yet", "summary.json");
    const r = await cli(["score", RUBRIC, input, "-o", join(dir, "sys-out.jsonl"), "--summary-json", summary, "-q"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(summary, "utf8"))).toMatchObject({ samples: 1, scored: 1 });
  });
});

describe("standard input that is a folder (`rubricate score r.yaml - < folder`)", () => {
  it("is a BAD_INPUT error, not an empty run that exits 0 (node ends such a stdin without a word)", async () => {
    const fd = openSync(dir, "r");
    try {
      const child = spawn(process.execPath, [...cliEntry(), "score", RUBRIC, "-", "-q", "--no-cache"], { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" }, stdio: [fd, "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
      child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      const code = await new Promise<number | null>((done) => child.on("close", done));
      expect(code).toBe(1);
      expect(stderr).toBe("rubricate: BAD_INPUT: standard input is a folder, not a JSONL file\n");
      expect(stdout).toBe("");
    } finally {
      closeSync(fd);
    }
  });
});

describe("an output that is the input", () => {
  it.each([
    ["score", (input: string) => ["score", RUBRIC, input, "-o", input, "-q"]],
    ["distill", (input: string) => ["distill", input, "-o", input, "-q"]],
    ["merge", (input: string) => ["merge", input, "-o", input]],
  ])("%s -o <its input> exits 2 and leaves the input as it was (replaced by the results before)", async (_name, args) => {
    const input = join(dir, `same-${_name}.jsonl`);
    const text = `${JSON.stringify({ index: 0, id: 1, prompt: "p", response: JSON.stringify({ name: "Ada", email: "ada@example.org" }), reward: 1 })}\n`;
    writeFileSync(input, text);
    const r = await cli(args(input));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`rubricate: -o ${input} is the input ${input}: its results would replace it; write them to another file\n`);
    expect(readFileSync(input, "utf8")).toBe(text);
  });

  // Each of these exited 0 having replaced the file: the samples with a summary, a cache of paid
  // answers with JSONL, a hand-written rubric with JSON.
  it.each([
    ["score --summary-json <its samples>", (f: Files) => ["score", RUBRIC, f.samples, "--summary-json", f.samples, "-q", "--no-cache"], "samples", "the samples file"],
    ["score -o <its cache>", (f: Files) => ["score", RUBRIC, f.samples, "--cache", f.cache, "-o", f.cache, "-q"], "cache", "--cache"],
    ["score -o and --summary-json on one file", (f: Files) => ["score", RUBRIC, f.samples, "-o", f.out, "--summary-json", f.out, "-q", "--no-cache"], "out", "-o"],
    ["distill --report <its input>", (f: Files) => ["distill", f.samples, "-o", f.out, "--report", f.samples, "-q"], "samples", "the input file"],
    ["probe --json <its rubric>", (f: Files) => ["probe", f.rubric, f.samples, "--no-cache", "--json", f.rubric, "-q"], "rubric", "the rubric file"],
    ["merge -o <the merged cache>", (f: Files) => ["merge", f.samples, "-o", f.cache, "--cache", f.cache, "--from-cache", f.out], "cache", "-o"],
  ] as const)("%s exits 2 naming both, and leaves the file as it was", async (_name, args, kept, named) => {
    const f: Files = { samples: join(dir, "clash-samples.jsonl"), rubric: join(dir, "clash-rubric.yaml"), cache: join(dir, "clash-cache.db"), out: join(dir, "clash-out.jsonl") };
    const texts = {
      samples: `${JSON.stringify({ index: 0, id: 1, prompt: "p", response: JSON.stringify({ name: "Ada", email: "ada@example.org" }), reward: 1 })}\n`,
      rubric: readFileSync(RUBRIC, "utf8"),
      cache: "not touched\n",
      out: "earlier results\n",
    };
    for (const key of Object.keys(texts) as (keyof Files)[]) writeFileSync(f[key], texts[key]);
    const r = await cli([...args(f)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^rubricate: \\S+ \\S+ is also ${named.replace(/-/g, "\\-")} \\(`));
    expect(r.stderr).toContain("writing it would replace that file");
    expect(readFileSync(f[kept], "utf8")).toBe(texts[kept]);
  });
});

interface Files {
  samples: string;
  rubric: string;
  cache: string;
  out: string;
}
