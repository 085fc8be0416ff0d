import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

const bin = join(process.cwd(), "node_modules", ".bin", "depcruise");
const depcruise = (cwd: string) => {
  try {
    return { code: 0, out: execFileSync(bin, [ "src", "--config", ".dependency-cruiser.cjs"], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }) };
  } catch (e) {
    const err = e as { status: number; stdout: string };
    return { code: err.status, out: err.stdout };
  }
};

/** Files planted into a copy of src, each breaking one rule: the same config must judge them. */
const PLANTED: Record<string, string> = {
  "src/engine/upward.ts": 'import { score } from "../score/score.js";\nexport const s = score;\n',
  // The hole this closes: src/zzz importing cli, imported by engine, passed as no layer named it.
  "src/zzz/x.ts": 'import { EXIT } from "../cli/run.js";\nexport const z = EXIT;\n',
  "src/engine/uses-zzz.ts": 'import { z } from "../zzz/x.js";\nexport const u = z;\n',
  "src/yyy/alone.ts": "export const alone = 1;\n",
  "src/providers/gemini.ts": "export const gemini = 1;\n",
  "src/judge/uses-gemini.ts": 'import { gemini } from "../providers/gemini.js";\nexport const g = gemini;\n',
  "src/sandbox/firecracker/index.ts": "export const vm = 1;\n",
  "src/checks/uses-vm.ts": 'import { vm } from "../sandbox/firecracker/index.js";\nexport const v = vm;\n',
};

/** depcruise over a copy of src with `files` added. */
function withFiles(files: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), "rubricate-layers-"));
  try {
    cpSync("src", join(dir, "src"), { recursive: true });
    for (const f of [".dependency-cruiser.cjs", "tsconfig.json", "package.json"]) cpSync(f, join(dir, f));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return depcruise(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The violations depcruise lists, one per line (`error <rule>: <path> → <path>`). */
const violations = (out: string) => out.split("\n").filter((line) => /^\s+(?:error|warn|info)\s/.test(line)).map((line) => line.trim());

// One run of depcruise (seconds of CPU each) over src with every planted file: the real src is
// judged by the violations that name no planted file, the rules by those that do.
describe("layers (docs/DESIGN.md)", () => {
  let run: { code: number; out: string };
  beforeAll(() => {
    run = withFiles(PLANTED);
  }, 180_000);

  it("src has no cycle and no import that points up a layer", () => {
    const listed = violations(run.out);
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.filter((line) => !Object.keys(PLANTED).some((path) => line.includes(path)))).toEqual([]);
    // Nothing depcruise printed went unread: its count is the lines above.
    expect(run.out).toMatch(new RegExp(`x ${listed.length} dependency violations`));
  });

  it("the rule fails when engine imports the score layer; it is closed: a src/ folder no layer lists fails (importing, imported or alone), and core reaches adapters only through their interfaces, whatever the file or folder is called", () => {
    const { code, out } = run;
    expect(code).not.toBe(0);
    expect(out).toMatch(/layer-2-points-down: src\/engine\/upward\.ts → src\/score\/score\.ts/);
    expect(out).toMatch(/every-module-in-a-layer: src\/zzz\/x\.ts → src\/cli\/run\.ts/);
    expect(out).toMatch(/every-import-in-a-layer: src\/engine\/uses-zzz\.ts → src\/zzz\/x\.ts/);
    expect(out).toMatch(/every-orphan-in-a-layer: src\/yyy\/alone\.ts/);
    expect(out).toMatch(/core-never-imports-an-adapter: src\/judge\/uses-gemini\.ts → src\/providers\/gemini\.ts/);
    expect(out).toMatch(/core-never-imports-a-sandbox-backend: src\/checks\/uses-vm\.ts → src\/sandbox\/firecracker\/index\.ts/);
  });
});
