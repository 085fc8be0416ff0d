// The peer side of bench/cli-batched.ts, run as a fresh node process so its start-up counts:
// autoevals 0.3.0's ClosedQA, one call per sample (the ten questions as one criterion), at
// concurrency c. Args: <autoevals dir> <server url> <samples> <concurrency> <criteria>.
import { createRequire } from "node:module";
import { join } from "node:path";

const [dir, url, n, c, criteria] = process.argv.slice(2);
const load = createRequire(join(dir, "package.json"));
const { ClosedQA } = load("autoevals");
const { OpenAI } = createRequire(load.resolve("autoevals"))("openai");
const client = new OpenAI({ baseURL: url, apiKey: "bench", maxRetries: 5 });
let next = 0;
let wrong = 0;
const worker = async () => {
  while (next < Number(n)) {
    const i = next++;
    const r = await ClosedQA({ input: "Where is the Eiffel Tower?", output: `It is in Paris, France (answer number ${i}).`, criteria, client, model: "bench-judge" });
    if (r.score !== 1) wrong++;
  }
};
await Promise.all(Array.from({ length: Number(c) }, worker));
if (wrong > 0) throw new Error(`autoevals: ${wrong} ClosedQA call(s) did not read the fake judge's Y`);
