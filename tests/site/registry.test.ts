/**
 * The hub's registry client reads a version of a package document by the document's own keys: a
 * version named like what every object inherits (`constructor`, `__proto__`) is not published.
 */
import { describe, expect, it } from "vitest";
import { RegistryClient, versionDoc, type Packument } from "../../src/site/registry.js";

const REGISTRY = "http://registry.test/";
const doc: Packument = {
  name: "demo-env",
  registry: REGISTRY,
  versions: { "1.0.0": { name: "demo-env", version: "1.0.0", dist: { integrity: "sha512-demo", tarball: `${REGISTRY}demo-env/-/demo-env-1.0.0.tgz` } } },
};
const INHERITED = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"];

describe("versionDoc", () => {
  it("finds a published version and nothing for an inherited name", () => {
    expect(versionDoc(doc, "1.0.0")?.dist.integrity).toBe("sha512-demo");
    for (const version of INHERITED) expect({ version, found: versionDoc(doc, version) }).toEqual({ version, found: undefined });
  });
});

describe("RegistryClient.tarball", () => {
  it("fetches a published version's tarball, and for an inherited name asks nothing and answers undefined", async () => {
    const asked: string[] = [];
    const fetch = (async (url: string | URL) => {
      asked.push(String(url));
      return new Response(new Uint8Array([1, 2, 3]));
    }) as typeof globalThis.fetch;
    const client = new RegistryClient({ registries: [REGISTRY], fetch });
    expect(await client.tarball(doc, "1.0.0")).toEqual(Buffer.from([1, 2, 3]));
    for (const version of INHERITED) expect({ version, tgz: await client.tarball(doc, version) }).toEqual({ version, tgz: undefined });
    expect(asked).toEqual([`${REGISTRY}demo-env/-/demo-env-1.0.0.tgz`]);
  });
});
