/**
 * `hub serve`'s start-up warnings: a hub other machines reach must be told to use HTTPS, and one that
 * believes a proxy's address header must be told that anyone reaching it directly can write that
 * header. (The limits themselves: tests/site/limits.test.ts.)
 */
import { once } from "node:events";
import { connect } from "node:net";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spawnCli, tempDir } from "../helpers/cli.js";

/** Starts `hub serve` with `args`, waits for its listening line, runs `whileUp` with its URL, stops it; its stderr until then. */
async function startupLog(args: string[], whileUp: (url: string) => Promise<void> = async () => undefined): Promise<string> {
  const dir = tempDir("rubricate-hub-serve-");
  const child = spawnCli(["hub", "serve", "--registry", "http://127.0.0.1:9", "--port", "0", "--db", join(dir, "hub.db"), ...args]);
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  await new Promise<void>((listening, failed) => {
    child.stdout!.on("data", (c: Buffer) => {
      stdout += c.toString();
      if (stdout.includes("hub listening on")) listening();
    });
    child.once("exit", (code) => failed(new Error(`hub serve exited ${code} before listening: ${stderr}`)));
  });
  try {
    await whileUp(/hub listening on (\S+)/.exec(stdout)![1]);
  } finally {
    child.kill("SIGTERM");
  }
  await once(child, "exit");
  rmSync(dir, { recursive: true, force: true });
  return stderr;
}

describe("hub serve's start-up warnings", () => {
  it("warns that a proxy's address header is believed from anyone when the hub is reachable directly", async () => {
    const open = await startupLog(["--host", "0.0.0.0", "--client-ip-header", "x-forwarded-for"]);
    expect(open).toContain("0.0.0.0 is reachable from other machines; serve it behind HTTPS");
    expect(open).toContain("warning: --client-ip-header x-forwarded-for is believed from anyone who reaches 0.0.0.0 directly");
    // Behind the proxy on loopback: the header is the proxy's alone, nothing to warn about.
    expect(await startupLog(["--client-ip-header", "x-forwarded-for"])).not.toContain("warning");
  });
});

describe("hub serve's answers to what node:http cannot parse", () => {
  it("a request that is not HTTP gets a JSON error body, as every other refusal does (node's own answer had none)", async () => {
    let answer = "";
    await startupLog([], async (url) => {
      const { port } = new URL(url);
      answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), "127.0.0.1", () => socket.write("HELLO\r\n\r\n"));
        let text = "";
        socket.on("data", (d) => (text += d));
        socket.on("error", reject);
        socket.on("close", () => resolve(text));
      });
    });
    const [head, body] = answer.split("\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(body)).toEqual({ error: { code: "INVALID_REQUEST", message: expect.any(String) } });
  });
});
