/**
 * `packedFiles` lists in process what `npm pack` would ship: checked against the real
 * `npm pack --dry-run --json` on an example environment and on packages that use each rule npm
 * packs by (`files` with `./`, globs and a missing entry, .npmignore and .gitignore, `main`,
 * `browser` and `bin` kept whatever the ignore files say, npm's always-in and always-out files).
 */
import { spawn } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packedFiles } from "../../src/hub/packlist.js";
import { ROOT, tempDir } from "../helpers/cli.js";

const work = tempDir("rubricate-packlist-");
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A package folder from `{ path: content }`; a `->` content is a symbolic link to that path. */
function writePackage(name: string, files: Record<string, string>): string {
  const dir = join(work, name);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    if (content.startsWith("->")) symlinkSync(content.slice(2), join(dir, path));
    else writeFileSync(join(dir, path), content);
  }
  return dir;
}

/** What the real npm says it would pack. */
const npmPackList = (dir: string): Promise<string[]> =>
  new Promise((done, fail) => {
    const child = spawn("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: dir, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.on("error", fail);
    child.on("close", (code) => (code === 0 ? done((JSON.parse(out) as { files: { path: string }[] }[])[0].files.map((f) => f.path).sort()) : fail(new Error(`npm pack exited ${code} in ${dir}`))));
  });

const packages = {
  // No `files`: everything but the ignore files' entries and npm's always-out names; `bin` and `main` stay though .npmignore drops their folders.
  ignores: writePackage("ignores", {
    "package.json": JSON.stringify({ name: "@acme/ignores-env", version: "0.1.0", bin: "./bin/cli.js", main: "lib/index.js", rubricate: "env.yaml" }),
    "bin/cli.js": "x",
    "lib/index.js": "x",
    "lib/other.js": "x",
    "docs/a.md": "x",
    "build/out.js": "x",
    "node_modules/dep/index.js": "x",
    "env.yaml": "x",
    "README.md": "x",
    LICENSE: "x",
    "package-lock.json": "{}",
    ".DS_Store": "x",
    "x.orig": "x",
    "sub/.git/config": "x",
    "sub/ok.txt": "x",
    ".hidden/h": "x",
    "link.yaml": "->env.yaml",
    ".npmignore": "bin/\nlib/\ndocs/\n",
    ".gitignore": "build/\n",
  }),
  // `files` with a `./` folder, a glob, a missing entry; `browser`; `bin` targets spelled `./` and with a backslash kept,
  // one outside the package dropped; readme and licence spellings.
  files: writePackage("files", {
    "package.json": JSON.stringify({ name: "files-env", version: "0.1.0", files: ["./data", "env.yaml", "rubric/*", "*.md", "missing.txt"], bin: { b: "./tools/b.js", "../evil/c": "../../outside.js", ok: "bin\\win.js" }, browser: "web.js" }),
    "data/deep/t.jsonl": "x",
    "data/.npmignore": "x",
    "env.yaml": "x",
    "rubric/r.yaml": "x",
    "rubric/.hidden": "x",
    "README.md": "x",
    "CHANGELOG.md": "x",
    "tools/b.js": "x",
    "bin/win.js": "x",
    "web.js": "x",
    "other/o": "x",
    "LICENCE.txt": "x",
    copying: "x",
    ".npmignore": "data/deep/\n",
  }),
};
// One example (the largest, files in nested folders); the others have the same package.json shape, and an npm start is ~0.5 s of CPU.
const examples = [join(ROOT, "examples", "company-docs")];

describe("packedFiles", () => {
  it("lists what `npm pack --dry-run` lists, for an example environment and for each packing rule", async () => {
    const dirs = [...examples, ...Object.values(packages)];
    const [ours, npms] = await Promise.all([Promise.all(dirs.map(async (d) => (await packedFiles(d)).sort())), Promise.all(dirs.map(npmPackList))]);
    for (const [i, dir] of dirs.entries()) expect(ours[i], dir).toEqual(npms[i]);
    // The rules were in play: a bin and a main under ignored folders are kept, an ignored folder without one is not.
    expect(ours[examples.length]).toEqual(expect.arrayContaining(["bin/cli.js", "lib/index.js"]));
    expect(ours[examples.length]).not.toContain("docs/a.md");
    expect(ours[examples.length + 1]).toEqual(expect.arrayContaining(["tools/b.js", "bin/win.js", "web.js", "data/deep/t.jsonl"]));
  }, 60_000);

  it("asks npm itself for a package with bundled dependencies (npm-packlist needs npm's tree for them)", async () => {
    const dir = writePackage("bundled", {
      "package.json": JSON.stringify({ name: "bundled-env", version: "0.1.0", files: ["env.yaml"], dependencies: { dep: "1.0.0" }, bundleDependencies: ["dep"] }),
      "env.yaml": "x",
      "node_modules/dep/package.json": JSON.stringify({ name: "dep", version: "1.0.0" }),
      "node_modules/dep/index.js": "x",
    });
    // Listed in process, the bundled dependency would be missing (npm-packlist finds it through npm's tree).
    expect(await packedFiles(dir)).toContain("node_modules/dep/index.js");
  }, 60_000);
});
