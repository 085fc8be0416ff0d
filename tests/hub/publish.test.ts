import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bumpedManifest, configLines, contentHash, publishFailure, registryFlags, registryFor } from "../../src/hub/publish.js";
import { tempDir } from "../helpers/cli.js";

const file = (path: string, text: string) => ({ path, data: Buffer.from(text) });
const manifest = (version: string, extra: Record<string, unknown> = {}) => file("package.json", JSON.stringify({ name: "@acme/times-env", version, rubricate: "env.yaml", ...extra }, null, 2));

describe("contentHash", () => {
  it("ignores the version and the order of files: a bump alone is no change", () => {
    const a = contentHash([manifest("0.1.0"), file("env.yaml", "id: times\n"), file("tasks.jsonl", "{}\n")]);
    const b = contentHash([file("tasks.jsonl", "{}\n"), file("env.yaml", "id: times\n"), manifest("0.2.0")]);
    expect(a).toBe(b);
    expect(a).toMatch(/^sha256-[0-9a-f]{64}$/);
  });

  it("sees a change to any file, a renamed file, an added file, or another package.json field", () => {
    const base = [manifest("0.1.0"), file("env.yaml", "id: times\n")];
    const h = contentHash(base);
    expect(contentHash([manifest("0.1.0"), file("env.yaml", "id: times \n")])).not.toBe(h);
    expect(contentHash([manifest("0.1.0"), file("env.yml", "id: times\n")])).not.toBe(h);
    expect(contentHash([...base, file("README.md", "")])).not.toBe(h);
    expect(contentHash([manifest("0.1.0", { description: "x" }), file("env.yaml", "id: times\n")])).not.toBe(h);
    // Path and bytes are delimited: moving bytes between a name and its content is a change.
    expect(contentHash([file("ab", "c")])).not.toBe(contentHash([file("a", "bc")]));
  });
});

describe("publishFailure", () => {
  const npm = (error: Record<string, string>) => ({ code: 1, stdout: JSON.stringify({ error }, null, 2), stderr: "" });
  const reg = "http://127.0.0.1:4873/";

  it("turns npm's auth and conflict errors into one line with the fix", () => {
    const needAuth = publishFailure("@acme/x@0.1.0", reg, npm({ code: "ENEEDAUTH", summary: "This command requires you to be logged in to http://127.0.0.1:4873/", detail: "You need to authorize this machine using `npm adduser`" }));
    expect(needAuth).toMatchObject({ code: "REGISTRY_AUTH" });
    expect(needAuth.message).toContain(`run \`npm login --registry ${reg}\``);
    const forbidden = publishFailure("@acme/x@0.1.0", reg, npm({ code: "E403", summary: "403 Forbidden - PUT http://127.0.0.1:4873/@acme%2fx - user bob is not allowed to publish package @acme/x" }));
    expect(forbidden.message).toMatch(/refused \(E403: .*not allowed.*\); your user may not publish this name or scope/);
    const over = publishFailure("@acme/x@0.1.0", reg, npm({ summary: "You cannot publish over the previously published versions: 0.1.0.", detail: "" }));
    expect(over).toMatchObject({ code: "BAD_INPUT" });
    expect(over.message).toContain("pass --bump patch");
    for (const e of [needAuth, forbidden, over]) expect(e.message).not.toContain("\n");
  });
});

describe("registryFlags", () => {
  it("overrides the scope's registry too: a scope line in .npmrc would otherwise win over --registry", () => {
    expect(registryFlags("@acme/x", "http://r/")).toEqual(["--registry", "http://r/", "--@acme:registry=http://r/"]);
    expect(registryFlags("x", "http://r/")).toEqual(["--registry", "http://r/"]);
    expect(registryFlags("@acme/x", undefined)).toEqual([]);
  });
});

describe("registryFor", () => {
  it("reads the scope's registry and the default from one `npm config get` of both keys: key=value lines, split at the first =", () => {
    const values = configLines("@acme:registry=http://r.test/?a=b\nregistry=https://registry.npmjs.org/\n");
    expect([...values]).toEqual([
      ["@acme:registry", "http://r.test/?a=b"],
      ["registry", "https://registry.npmjs.org/"],
    ]);
  });

  it("gives the scope's registry from the project's .npmrc, else its default registry, as the real npm prints them", async () => {
    const dir = tempDir("rubricate-registry-for-");
    try {
      writeFileSync(join(dir, "package.json"), "{}\n");
      writeFileSync(join(dir, ".npmrc"), "@acme:registry=http://acme.test:4873/\nregistry=http://default.test/\n");
      // A scope with no registry of its own: npm prints `@other:registry=undefined`, and the default applies.
      expect(await Promise.all([registryFor("@acme/times-env", dir), registryFor("@other/times-env", dir)])).toEqual(["http://acme.test:4873/", "http://default.test/"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe("bumpedManifest", () => {
  it("writes package.json as `npm version <bump> --no-git-tag-version` does: its indent, line ends and key order kept", async () => {
    const fields = { name: "@acme/times-env", version: "0.1.9", rubricate: "env.yaml", peerDependencies: { rubricate: ">=1.0.0" } };
    const cases = [
      { bump: "patch", text: `${JSON.stringify(fields, null, 2)}\n` },
      { bump: "minor", text: `${JSON.stringify(fields, null, "\t")}\r\n`.replace(/\n/g, "\r\n") },
      { bump: "patch", text: JSON.stringify(fields) },
    ] as const;
    const dir = tempDir("rubricate-bump-");
    try {
      const byNpm = await Promise.all(
        cases.map(async ({ bump, text }, i) => {
          const pkg = join(dir, String(i));
          mkdirSync(pkg);
          writeFileSync(join(pkg, "package.json"), text);
          await promisify(execFile)("npm", ["version", bump, "--no-git-tag-version", "--ignore-scripts"], { cwd: pkg });
          return readFileSync(join(pkg, "package.json"), "utf8");
        }),
      );
      cases.forEach(({ bump, text }, i) => expect(bumpedManifest(text, bump)?.text, `${bump} of ${JSON.stringify(text.slice(0, 12))}…`).toBe(byNpm[i]));
      expect(cases.map(({ bump, text }) => bumpedManifest(text, bump)?.version)).toEqual(["0.1.10", "0.2.0", "0.1.10"]);
      expect(bumpedManifest(cases[0].text, "major")?.version).toBe("1.0.0");
      expect(bumpedManifest(JSON.stringify({ ...fields, version: "next" }), "patch")).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
