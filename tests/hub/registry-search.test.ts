import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { create } from "tar";
import { describe, expect, it } from "vitest";
import { describeEnvironment, tarballTextFiles } from "../../src/hub/registry-search.js";
import { tempDir } from "../helpers/cli.js";

/** An npm-shaped tarball (files under `package/`) of the given files. */
async function tarball(files: Record<string, string>): Promise<Buffer> {
  const dir = tempDir("rubricate-tgz-");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, "package", path, ".."), { recursive: true });
    writeFileSync(join(dir, "package", path), text);
  }
  const file = join(dir, "out.tgz");
  await create({ gzip: true, cwd: dir, file }, ["package"]);
  return readFileSync(file);
}

describe("tarballTextFiles / describeEnvironment", () => {
  const env = {
    "package.json": JSON.stringify({ name: "e", version: "1.0.0", rubricate: { env: "env.yaml" } }),
    "env.yaml": "id: e\ndataset: tasks.jsonl\nrubric: rubric.yaml\n",
    "tasks.jsonl": '{"id":"1"}\n{"id":"2"}\n\n',
    "rubric.yaml": "id: r\ncriteria:\n  - id: correct\n    question: Is it right?\n  - id: short\n    check: { type: length, max: 100 }\n",
    "hooks.ts": "export default {}\n",
  };

  it("reads the describing files of a package in memory and counts its tasks and criteria", async () => {
    const files = await tarballTextFiles(await tarball(env));
    expect([...files.keys()].sort()).toEqual(["env.yaml", "package.json", "rubric.yaml", "tasks.jsonl"]);
    const d = describeEnvironment(files, { env: "env.yaml" });
    expect(d.tasks).toBe(2);
    expect(d.criteria.map((c) => c.id)).toEqual(["correct", "short"]);
  });

  it("leaves out a file over the per-file limit, and stops at the total limit", async () => {
    const big = await tarball({ ...env, "tasks.jsonl": `${'{"id":"x"}\n'.repeat(1000)}` });
    expect((await tarballTextFiles(big, { maxFileBytes: 1000 })).has("tasks.jsonl")).toBe(false);
    expect(describeEnvironment(await tarballTextFiles(big, { maxFileBytes: 1000 }), "env.yaml").tasks).toBeUndefined();
    expect((await tarballTextFiles(big, { maxTotalBytes: 50 })).size).toBeLessThan(4);
  });

  it("a package whose env.yaml or rubric is malformed is described as far as it reads, never a thrown parse or type error (a stack trace in env info, a 500 on the hub page before)", () => {
    const files = (extra: Record<string, string>) => new Map(Object.entries({ ...env, ...extra }));
    expect(describeEnvironment(files({ "env.yaml": "id: e\ndataset: tasks.jsonl\nrubric:\n  id: r\n\tcriteria: []\n" }), "env.yaml")).toEqual({ criteria: [] });
    expect(describeEnvironment(files({ "rubric.yaml": "id: r\ncriteria: 5\n" }), "env.yaml")).toEqual({ tasks: 2, criteria: [] });
    expect(describeEnvironment(files({ "rubric.yaml": "id: r\ncriteria:\n  - null\n  - id: ok\n    question: Is it?\n  - 7\n" }), "env.yaml").criteria.map((c) => c.id)).toEqual(["ok"]);
    expect(describeEnvironment(files({ "rubric.yaml": "id: r\ncriteria: [\n" }), "env.yaml")).toEqual({ tasks: 2, criteria: [] });
  });

  it("bytes that are not a tarball are PACKAGE_INVALID, not a crash", async () => {
    await expect(tarballTextFiles(Buffer.from("not a tarball at all, just text"))).rejects.toMatchObject({ code: "PACKAGE_INVALID" });
  });
});
