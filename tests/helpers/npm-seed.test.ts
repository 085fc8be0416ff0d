/** publishTarball against a registry that drops the connection of the first PUT, as an idle-closed keep-alive socket does. */
import { createServer } from "node:http";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { publishTarball } from "./npm-seed.js";
import { tempDir } from "./cli.js";

const dir = tempDir("rubricate-npm-seed-");

/** A registry whose answers to PUTs are `plan`, in order: "drop" destroys the socket unanswered. */
async function registry(plan: ("drop" | number)[]) {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      seen.push(`${req.method} ${req.url}`);
      const step = plan.shift() ?? 500;
      if (step === "drop") req.socket.destroy();
      else res.writeHead(step, { "content-type": "application/json" }).end("{}");
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, seen, close: () => new Promise((r) => server.close(r)) };
}

describe("publishTarball", () => {
  const tarball = join(dir, "pkg.tgz");
  writeFileSync(tarball, "not really a tarball");
  const manifest = { name: "@acme/pkg", version: "1.0.0" };

  it("sends the PUT again once when the connection is dropped before an answer; a 409 then counts as published", async () => {
    for (const second of [201, 409]) {
      const reg = await registry(["drop", second]);
      await expect(publishTarball(reg.url, "t", tarball, manifest)).resolves.toBeUndefined();
      expect(reg.seen).toEqual(["PUT /@acme%2fpkg", "PUT /@acme%2fpkg"]);
      await reg.close();
    }
  });

  it("does not send it a third time, and a refusal is an error", async () => {
    const dropped = await registry(["drop", "drop"]);
    await expect(publishTarball(dropped.url, "t", tarball, manifest)).rejects.toThrow(/fetch failed/);
    expect(dropped.seen).toHaveLength(2);
    await dropped.close();
    const refused = await registry([403]);
    await expect(publishTarball(refused.url, "t", tarball, manifest)).rejects.toThrow(/failed: 403/);
    expect(refused.seen).toHaveLength(1);
    await refused.close();
  });
});
