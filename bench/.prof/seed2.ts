import { startOpenAIServer } from "../../tests/servers/openai-server.js";
import OpenAI from "openai";
const srv = await startOpenAIServer({ seed: 7, rates: { "429": 0.2, "500": 0.05, "529": 0.05, hang: 0.02, reset: 0.03, truncated: 0.03, garbage: 0.02 }, respond: () => "ok" });
const c = new OpenAI({ baseURL: srv.url, apiKey: "x", maxRetries: 0, timeout: 200 });
for (let i = 0; i < 200; i++) { try { await c.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] }); } catch {} }
const counts: Record<string, number> = {};
for (const r of srv.requests) counts[r.fault] = (counts[r.fault] ?? 0) + 1;
console.log(counts, srv.stats.faults, srv.requests.slice(155, 162).map((r) => [r.index, r.fault]));
await srv.close();
