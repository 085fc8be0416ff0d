/**
 * Run by tests/providers/sdk-web.test.ts in a child node: `node undici-loaded.mjs <dist>`. Makes one
 * chat call through the built bundle's OpenAI provider (the SDK over `nodeHttpFetch`) to the built
 * fake OpenAI server, and prints `{ text, undici }`: the answer and whether Node loaded undici,
 * the module behind the lazy fetch globals. `RUBRICATE_HTTP=fetch` (the global fetch) is the control.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const dist = process.argv[2];
const { startOpenAIServer } = await import(pathToFileURL(join(dist, "testing", "index.js")).href);
const { createProvider } = await import(pathToFileURL(join(dist, "index.js")).href);
const server = await startOpenAIServer({ respond: () => "a fine answer" });
try {
  const provider = createProvider({ provider: "openai-compatible", base_url: server.url, model: "m" });
  const res = await provider.complete({ model: "m", messages: [{ role: "user", content: "hi" }] });
  process.stdout.write(JSON.stringify({ text: res.text, undici: process.moduleLoadList.some((m) => m.includes("undici")) }));
} finally {
  await server.close();
}
