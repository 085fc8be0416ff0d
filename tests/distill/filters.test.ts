import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { runDistill } from "../../src/distill/run.js";
import { tempDir } from "../helpers/cli.js";
import { answers, chatRow, distillRows, readLines } from "./helpers.js";

const v = (id: string, status: string, points = 1) => ({ id, status, points });

describe("row filters", () => {
  it("--min-reward keeps reward ≥ x and reports the rest", async () => {
    const { lines, report } = await distillRows([chatRow("a", "low", 0.2), chatRow("b", "edge", 0.5), chatRow("c", "high", 0.9)], { minReward: 0.5 });
    expect(answers(lines)).toEqual(["edge", "high"]);
    expect(report.dropped).toEqual({ "min-reward": 1 });
  });

  it("a null reward is dropped with its own reason, even with no threshold, and its error codes are reported", async () => {
    const { lines, report } = await distillRows([chatRow("a", "ok", 0), chatRow("b", "broken", null, { errors: [{ code: "JUDGE_PARSE", criterion: "x", message: "bad" }] })]);
    expect(answers(lines)).toEqual(["ok"]);
    expect(report.dropped).toEqual({ "reward-null": 1 });
    expect(report.errorCodes).toEqual({ JUDGE_PARSE: 1 });
    expect(report.before.reward.n).toBe(1); // the null row is not a 0 in the distribution
  });

  it("--require: a criterion must be met; a pitfall must be unmet (or skipped); an error or no verdict fails", async () => {
    const rows = [
      chatRow("a", "all good", 1, { verdicts: [v("cites", "met"), v("invents", "unmet", -5)] }),
      chatRow("b", "no cite", 1, { verdicts: [v("cites", "unmet"), v("invents", "unmet", -5)] }),
      chatRow("c", "invents", 1, { verdicts: [v("cites", "met"), v("invents", "met", -5)] }),
      chatRow("d", "pitfall skipped", 1, { verdicts: [v("cites", "met"), v("invents", "skipped", -5)] }),
      chatRow("e", "error", 1, { verdicts: [v("cites", "error"), v("invents", "unmet", -5)] }),
      chatRow("f", "no verdicts", 1),
    ];
    const { lines, report } = await distillRows(rows, { require: ["cites", "invents"] });
    expect(answers(lines)).toEqual(["all good", "pitfall skipped"]);
    expect(report.dropped).toEqual({ "require:cites": 3, "require:invents": 1 });
  });

  it("warns when a required criterion never appears (a typo drops everything)", async () => {
    const { report } = await distillRows([chatRow("a", "x", 1, { verdicts: [v("cites", "met")] })], { require: ["citse"] });
    expect(report.kept).toBe(0);
    expect(report.warnings.join(" ")).toContain('no row has a verdict for "citse"');
  });

  it("length limits: characters of the response, tokens of the completion", async () => {
    const rows = [chatRow("a", "tiny", 1), chatRow("b", "just right here", 1), chatRow("c", "x".repeat(40), 1), chatRow("d", "medium answer", 1, { usage: { outputTokens: 500 } })];
    const { lines, report } = await distillRows(rows, { minChars: 5, maxChars: 30, maxTokens: 100 });
    expect(answers(lines)).toEqual(["just right here"]);
    expect(report.dropped).toEqual({ "too-short": 1, "too-long": 2 });
  });

  it("rows without a usable answer are counted as no-response and warned about", async () => {
    const { report } = await distillRows([{ messages: [{ role: "user", content: "hi" }], reward: 1 }, chatRow("a", "x", 1)]);
    expect(report.dropped).toEqual({ "no-response": 1 });
    expect(report.warnings.join(" ")).toContain("no usable prompt and response");
  });
});

describe("--best-of per prompt", () => {
  it("keeps the n highest rewards of each group", async () => {
    const rows = [chatRow("a", "a1", 0.1), chatRow("a", "a2", 0.9), chatRow("a", "a3", 0.5), chatRow("b", "b1", 0.3), chatRow("b", "b2", 0.2)];
    const { lines, report } = await distillRows(rows, { bestOf: 2 });
    expect(answers(lines)).toEqual(["a2", "a3", "b1", "b2"]);
    expect(report.dropped).toEqual({ "best-of": 1 });
  });

  it("ties on reward go to fewer tokens (⌈chars/4⌉), then to the earlier row", async () => {
    const rows = [chatRow("a", "long answer here!", 1), chatRow("a", "short", 1), chatRow("a", "short2", 1), chatRow("a", "worse", 0.5)];
    expect(answers((await distillRows(rows, { bestOf: 1 })).lines)).toEqual(["short"]);
    // "short" and "short2" are both 2 tokens: the earlier wins, whatever the order of arrival.
    const swapped = [rows[2], rows[1], rows[0]];
    expect(answers((await distillRows(swapped, { bestOf: 1 })).lines)).toEqual(["short2"]);
  });

  it("usage.outputTokens, when present, decides the tie instead of the approximation", async () => {
    const rows = [chatRow("a", "tiny", 1, { usage: { outputTokens: 50 } }), chatRow("a", "a much longer answer", 1, { usage: { outputTokens: 10 } })];
    expect(answers((await distillRows(rows, { bestOf: 1 })).lines)).toEqual(["a much longer answer"]);
  });

  it("rows filtered out never count among the best (a null reward is not a candidate)", async () => {
    const rows = [chatRow("a", "short", 1), chatRow("a", "null reward here", null), chatRow("a", "long enough kept", 0.4)];
    const { lines, report } = await distillRows(rows, { bestOf: 1, minChars: 10 });
    expect(answers(lines)).toEqual(["long enough kept"]);
    expect(report.dropped).toEqual({ "too-short": 1, "reward-null": 1 });
  });

  it("--group-by names the prompt key", async () => {
    const rows = [chatRow("a", "1", 0.5, { family: "x" }), chatRow("b", "2", 0.9, { family: "x" }), chatRow("c", "3", 0.1, { family: "y" })];
    const out = await runDistill({ input: rows, filters: { bestOf: 1 }, rows: { groupBy: "family" } });
    expect(out.report.kept).toBe(2);
  });

  it("rows of a group may interleave with others within the group window (eval writes rollouts as they finish)", async () => {
    const rows = [chatRow("a", "a1", 0.2), chatRow("b", "b1", 0.9), chatRow("a", "a2", 0.8), chatRow("c", "c1", 0.5), chatRow("b", "b2", 0.1), chatRow("a", "a3", 0.3)];
    const out = await runDistill({ input: rows, filters: { bestOf: 1 }, groupWindow: 3, output: join(tempDir(), "o.jsonl") });
    expect(answers(readLines(out.output!))).toEqual(["c1", "b1", "a2"]); // at the end, groups close least recently seen first
    expect(out.report.dropped).toEqual({ "best-of": 3 });
  });

  it("a group that comes back after the window closed it is an error, never a second group", async () => {
    const rows = [chatRow("a", "1", 1), chatRow("b", "2", 1), chatRow("c", "3", 1), chatRow("a", "4", 1)];
    await expect(runDistill({ input: rows, filters: { bestOf: 1 }, groupWindow: 2 })).rejects.toThrow(/row 4: group "a" came back after it was closed \(more than 2 other groups/);
    await expect(runDistill({ input: rows, filters: { bestOf: 1 }, groupWindow: 3 })).resolves.toBeDefined();
  });
});

describe("--margin (SFT)", () => {
  it("keeps a prompt only when its best beats its worst by the margin; null rewards are not the worst", async () => {
    const rows = [
      chatRow("a", "a-best", 0.9), chatRow("a", "a-worst", 0.2), // spread 0.7: kept
      chatRow("b", "b-best", 0.9), chatRow("b", "b-worst", 0.7), chatRow("b", "b-null", null), // spread 0.2: dropped
      chatRow("c", "c-only", 1), // spread 0: dropped
    ];
    const { lines, report } = await distillRows(rows, { margin: 0.5 });
    expect(answers(lines)).toEqual(["a-best", "a-worst"]);
    expect(report.dropped).toEqual({ margin: 3, "reward-null": 1 });
  });
  it("is measured before row filters: the worst may be dropped by --min-reward and still count", async () => {
    const rows = [chatRow("a", "good", 0.9), chatRow("a", "bad", 0.1)];
    const { lines } = await distillRows(rows, { margin: 0.5, minReward: 0.5 });
    expect(answers(lines)).toEqual(["good"]);
  });
});

describe("--top-fraction", () => {
  it("keeps ⌈f·n⌉ best rows over the whole run; ties at the cut go to earlier rows", async () => {
    const rows = [chatRow("a", "r0.5a", 0.5), chatRow("b", "r0.9", 0.9), chatRow("c", "r0.5b", 0.5), chatRow("d", "r0.1", 0.1), chatRow("e", "r0.5c", 0.5)];
    const { lines, report } = await distillRows(rows, { topFraction: 0.6 });
    expect(answers(lines)).toEqual(["r0.5a", "r0.9", "r0.5b"]);
    expect(report.dropped).toEqual({ "top-fraction": 2 });
  });
  it("rejects a fraction outside (0, 1]", async () => {
    await expect(distillRows([chatRow("a", "x", 1)], { topFraction: 1.5 })).rejects.toThrow(/top-fraction/);
  });
});

describe("dedup", () => {
  it("exact duplicates are removed by default, the first kept", async () => {
    const rows = [chatRow("a", "same", 1, { n: 1 }), chatRow("a", "same", 0.5, { n: 2 }), chatRow("a", "other", 1)];
    const { lines, report } = await distillRows(rows);
    expect(lines.map((l) => l.metadata.reward)).toEqual([1, 1]);
    expect(report.dropped).toEqual({ duplicate: 1 });
    expect((await distillRows(rows, { dedup: "none" })).lines).toHaveLength(3);
  });
  it("near duplicates (formatting, one word changed) go with --dedup near; distinct texts stay", async () => {
    const base = "The capital of France is Paris, a city on the Seine known for its museums, cafés and the Eiffel Tower.";
    const rows = [
      chatRow("a", base, 1),
      chatRow("a", base.replace("museums", "galleries"), 1),
      chatRow("a", `  ${base.toUpperCase()}\n`, 1),
      chatRow("a", "Lyon is not the capital; the French government sits in Paris, which has been the capital for centuries.", 1),
    ];
    const near = await distillRows(rows, { dedup: "near" });
    expect(near.report.dropped).toEqual({ "near-duplicate": 2 });
    expect(near.lines).toHaveLength(2);
    const exact = await distillRows(rows, { dedup: "exact" });
    expect(exact.lines).toHaveLength(4);
  });
  it("--dedup-on completion ignores the prompt", async () => {
    const rows = [chatRow("a", "I cannot help with that.", 1), chatRow("b", "I cannot help with that.", 1)];
    expect((await distillRows(rows, {})).lines).toHaveLength(2);
    expect((await distillRows(rows, { dedupOn: "completion" })).lines).toHaveLength(1);
  });
});

describe("--max-per-tag", () => {
  it("caps each tag in input order; untagged rows share one cap; a row with a full tag is dropped", async () => {
    const rows = [
      chatRow("1", "m1", 1, { tags: ["math"] }),
      chatRow("2", "m2", 1, { tags: ["math"] }),
      chatRow("3", "m3", 1, { tags: ["math"] }),
      chatRow("4", "g1", 1, { tags: "geo" }),
      chatRow("5", "mg", 1, { tags: ["geo", "math"] }),
      chatRow("6", "u1", 1),
      chatRow("7", "u2", 1),
      chatRow("8", "u3", 1),
    ];
    const { lines, report } = await distillRows(rows, { maxPerTag: 2 });
    expect(answers(lines)).toEqual(["m1", "m2", "g1", "u1", "u2"]);
    expect(report.dropped).toEqual({ "tag-cap": 3 });
    expect(report.tagCounts).toEqual({ math: 2, geo: 1, "(untagged)": 2 });
  });
});

describe("composition", () => {
  it("stages run in order and each reports its own counts", async () => {
    const rows: Record<string, unknown>[] = [];
    for (let g = 0; g < 6; g++) for (let k = 0; k < 4; k++) rows.push(chatRow(`g${g}`, `answer ${g}-${k}`, k === 3 ? null : (g + k) / 10, { tags: [g % 2 ? "odd" : "even"] }));
    const { report, lines } = await distillRows(rows, { minReward: 0.1, bestOf: 2, topFraction: 0.5, maxPerTag: 2 });
    expect(report.funnel.map((s) => s.stage)).toEqual(["rows", "groups", "top-fraction", "dedup", "tag-cap"]);
    for (const s of report.funnel) expect(s.in).toBe(s.out + Object.values(s.dropped).reduce((a, b) => a + b, 0));
    for (let i = 1; i < report.funnel.length; i++) expect(report.funnel[i].in).toBe(report.funnel[i - 1].out);
    expect(lines).toHaveLength(report.kept);
    expect(report.funnel.at(-1)!.out).toBe(report.kept);
  });
});
