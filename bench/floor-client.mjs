// The floor of the throughput benchmarks (bench/lib/floor.ts says why): a bare node:http keep-alive
// client that posts ready-made chat-completion bodies and parses each answer, nothing else. Plain
// JavaScript so bench/cli-batched.ts can run it as a fresh `node` process, start-up included, as it
// runs the CLI. Args when run directly: <base url> <bodies file, one JSON per line> <concurrency>.
import { readFileSync } from "node:fs";
import http from "node:http";
import { fileURLToPath } from "node:url";

/**
 * Posts every body to `<baseURL>/chat/completions`, `concurrency` in flight over one keep-alive
 * agent; resolves with the wall time in seconds. A non-200 answer or one without choices throws:
 * a floor made of failed calls would be no floor.
 * @param {string} baseURL
 * @param {readonly string[]} bodies
 * @param {number} concurrency
 * @returns {Promise<number>}
 */
export async function bareClientRun(baseURL, bodies, concurrency) {
  const url = new URL(`${baseURL.replace(/\/$/, "")}/chat/completions`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, scheduling: "lifo" });
  /** @param {string} body */
  const post = (body) =>
    new Promise((resolve, reject) => {
      const headers = { accept: "application/json", "content-type": "application/json", authorization: "Bearer bench", "content-length": String(Buffer.byteLength(body)) };
      const request = http.request({ hostname: url.hostname, port: url.port, path: url.pathname, method: "POST", agent, headers }, (res) => {
        /** @type {Buffer[]} */
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => {
          const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"));
          if (res.statusCode !== 200 || !parsed.choices?.length) reject(new Error(`floor client: HTTP ${res.statusCode}`));
          else resolve(undefined);
        });
      });
      request.on("error", reject);
      request.end(body);
    });
  let next = 0;
  const t0 = performance.now();
  try {
    await Promise.all(
      Array.from({ length: Math.min(concurrency, bodies.length) }, async () => {
        while (next < bodies.length) await post(bodies[next++]);
      }),
    );
    return (performance.now() - t0) / 1000;
  } finally {
    agent.destroy();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [url, file, concurrency] = process.argv.slice(2);
  const bodies = readFileSync(file, "utf8").split("\n").filter(Boolean);
  await bareClientRun(url, bodies, Number(concurrency));
}
