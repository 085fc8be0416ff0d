/**
 * The providers' transports over https: node:https loads on the first https request, not with the
 * module (a run against a local http judge never loads TLS), and then carries the live call and
 * the batch clients' downloads. The client trusts the test certificate only through
 * NODE_EXTRA_CA_CERTS, which Node reads at start-up, so the calls run in a child process.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const TLS = join(ROOT, "tests", "fixtures", "tls");
const CHILD = join(import.meta.dirname, "fixtures", "https-call.ts");

let server: Server;
let baseURL: string;
const seen: { url?: string; authorization?: string; body: string }[] = [];

beforeAll(async () => {
  server = createServer({ key: readFileSync(join(TLS, "localhost.key")), cert: readFileSync(join(TLS, "localhost.crt")) }, (req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ url: req.url, authorization: req.headers.authorization, body });
      if (req.url === "/v1/chat/completions") {
        const completion = { id: "c1", object: "chat.completion", created: 0, model: "m", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "over TLS" } }], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } };
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(completion));
      } else if (req.url === "/v1/files/f1/content") res.writeHead(200, { "content-type": "application/jsonl" }).end('{"custom_id":"a"}\n');
      else res.writeHead(404).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseURL = `https://localhost:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

const runChild = (env: Record<string, string>) =>
  promisify(execFile)(process.execPath, ["--import", "tsx", CHILD, baseURL], { cwd: ROOT, env: { ...process.env, HTTPS_TEST_KEY: "sk-https-test", ...env }, timeout: 60_000 });

it("the live call and a batch download go out over https; node:https loads with the first request, not before", async () => {
  const { stdout } = await runChild({ NODE_EXTRA_CA_CERTS: join(TLS, "localhost.crt") });
  const out = JSON.parse(stdout.trim().split("\n").at(-1)!) as { before: boolean; afterCall: boolean; text: string; status: number; body: string };
  expect(out).toEqual({ before: false, afterCall: true, text: "over TLS", status: 200, body: '{"custom_id":"a"}\n' });
  const call = seen.find((s) => s.url === "/v1/chat/completions")!;
  expect(call.authorization).toBe("Bearer sk-https-test");
  expect(JSON.parse(call.body)).toMatchObject({ model: "m", messages: [{ role: "user", content: "Is it secure?" }] });
});

it("a certificate the client does not trust fails the call (TLS is checked, not skipped)", async () => {
  const failed = await runChild({ NODE_EXTRA_CA_CERTS: "" }).then(
    () => undefined,
    (e: { stderr?: string }) => e.stderr ?? "",
  );
  expect(failed).toBeDefined();
  expect(failed).toMatch(/certificate/i);
});
