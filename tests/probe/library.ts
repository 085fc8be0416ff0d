/**
 * Probes every rubric in rubrics/ with the gullible lexical judge (tests/probe/judges.ts) over the
 * local OpenAI wire-format server, on samples built from each rubric's inputs and examples.
 * Used by rubrics.test.ts, and run directly to regenerate the tables in docs/probe-findings.md:
 *   npx tsx tests/probe/library.ts literal > /tmp/probe-literal.md         (full markdown reports)
 *   npx tsx tests/probe/library.ts lexical summary [rubric files…]        (one table row per rubric)
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { createJudge } from "../../src/judge/create.js";
import { probe, probeMarkdown, type ProbeResult } from "../../src/probe/index.js";
import { samplesFromExamples } from "../../src/probe/samples.js";
import { loadRubricSync } from "../../src/rubric/load.js";
import type { Rubric } from "../../src/rubric/schema.js";
import type { Sample } from "../../src/types.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";
import { lexical, literal } from "./judges.js";

/** Every rubric file under rubrics/, sorted. */
export function rubricFiles(dir = "rubrics"): string[] {
  // Node 20 has no fs.globSync: walk the folder.
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? rubricFiles(join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [join(dir, e.name)] : []))
    .sort();
}

/** One rubric's probe on its example samples. */
export interface LibraryRun {
  file: string;
  rubric: Rubric;
  samples: Sample[];
  result: ProbeResult;
}

/** The scripted judges of the library run: literal (holes no judge closes) and lexical (the worst case). */
export const LIBRARY_JUDGES = { literal, lexical };

/** Probes each rubric file with one scripted judge; one server for all. */
export async function probeLibrary(files = rubricFiles(), judgeKind: keyof typeof LIBRARY_JUDGES = "lexical"): Promise<LibraryRun[]> {
  const server = await startOpenAIServer({ respond: judgeResponder(LIBRARY_JUDGES[judgeKind]) });
  const judge = createJudge({ provider: "openai-compatible", base_url: server.url, model: `${judgeKind}-judge`, max_retries: 1, max_concurrency: 8 }, { cache: false });
  try {
    const runs: LibraryRun[] = [];
    for (const file of files) {
      const rubric = loadRubricSync(file);
      const samples = samplesFromExamples(rubric);
      runs.push({ file, rubric, samples, result: await probe(rubric, samples, { judge }) });
    }
    return runs;
  } finally {
    await judge.close?.();
    await server.close();
  }
}

/** One line per rubric and judge: the worst attack, what it won, and which attacks earn anything. */
export function summaryRows(runs: LibraryRun[]): string[] {
  return runs.map(({ file, samples, result }) => {
    const zero = result.attacks.filter((a) => a.deservesZero && a.meanReward !== null).sort((a, b) => b.meanReward! - a.meanReward!);
    const worst = zero[0];
    const won = worst ? worst.criteria.filter((c) => c.wins > 0).map((c) => c.criterion).join(", ") : "";
    const winners = zero.filter((a) => a.meanReward! > 0).length;
    return `| ${file} | ${samples.length} | ${result.worstReward.toFixed(3)} | ${worst && worst.meanReward! > 0 ? `${worst.id} (${won || "—"})` : "—"} | ${winners} of ${zero.length} |`;
  });
}

if (process.argv[1]?.endsWith("library.ts")) {
  const kind = (process.argv[2] ?? "lexical") as keyof typeof LIBRARY_JUDGES;
  const files = process.argv.slice(process.argv[3] === "summary" ? 4 : 3);
  const runs = await probeLibrary(files.length ? files : rubricFiles(), kind);
  if (process.argv[3] === "summary") process.stdout.write(`${summaryRows(runs).join("\n")}\n`);
  else for (const run of runs) process.stdout.write(`<!-- ${run.file} (${kind} judge): ${run.samples.length} sample(s) -->\n${probeMarkdown(run.result)}\n`);
}
