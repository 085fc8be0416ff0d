/**
 * Probes every rubric in rubrics/ with the gullible lexical judge (tests/probe/judges.ts) over the
 * local OpenAI wire-format server, on samples built from each rubric's inputs and examples.
 * Used by rubrics.test.ts, and run directly to regenerate the tables in docs/probe-findings.md:
 *   npx tsx tests/probe/library.ts > /tmp/probe-library.md
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { createJudge } from "../../src/judge/create.js";
import { probe, probeMarkdown, samplesFromExamples, type ProbeResult } from "../../src/probe/index.js";
import { loadRubricSync } from "../../src/rubric/load.js";
import type { Rubric } from "../../src/rubric/schema.js";
import type { Sample } from "../../src/types.js";
import { judgeResponder } from "../servers/judge-responder.js";
import { startOpenAIServer } from "../servers/openai-server.js";
import { lexical } from "./judges.js";

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

/** Probes each rubric file; one server and one judge for all. */
export async function probeLibrary(files = rubricFiles()): Promise<LibraryRun[]> {
  const server = await startOpenAIServer({ respond: judgeResponder(lexical) });
  const judge = createJudge({ provider: "openai-compatible", base_url: server.url, model: "lexical-judge", max_retries: 1, max_concurrency: 8 }, { cache: false });
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

if (process.argv[1]?.endsWith("library.ts")) {
  for (const run of await probeLibrary()) process.stdout.write(`<!-- ${run.file}: ${run.samples.length} sample(s) -->\n${probeMarkdown(run.result)}\n`);
}
