/**
 * Run by tests/providers/sdk-web.test.ts in a child node: `node undici-loaded.mjs <dist>`. Makes one
 * chat call through the built bundle's OpenAI provider to the built fake OpenAI server, and prints
 * `{ text, sdk, undici }`: the answer, whether the SDK sent it (its `x-stainless-*` headers) and
 * whether Node loaded undici, the module behind the lazy fetch globals. By default the call goes
 * without the SDK; `OPENAI_LOG` sends it through the SDK over `nodeHttpFetch`; `RUBRICATE_HTTP=fetch`
 * through the SDK over the global fetch (the control).
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
  const sdk = Object.keys(server.requests[0].headers).some((name) => name.startsWith("x-stainless-"));
  process.stdout.write(JSON.stringify({ text: res.text, sdk, undici: process.moduleLoadList.some((m) => m.includes("undici")) }));
} finally {
  await server.close();
}
