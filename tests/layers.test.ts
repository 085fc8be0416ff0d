import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";

const bin = join(process.cwd(), "node_modules", ".bin", "depcruise");
const depcruise = (cwd: string) => {
  try {
    return { code: 0, out: execFileSync(bin, [ "src", "--config", ".dependency-cruiser.cjs"], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }) };
  } catch (e) {
    const err = e as { status: number; stdout: string };
    return { code: err.status, out: err.stdout };
  }
};

describe("layers (docs/DESIGN.md)", () => {
  it("src has no cycle and no import that points up a layer", () => {
    const { code, out } = depcruise(process.cwd());
    expect(out).toMatch(/no dependency violations found/);
    expect(code).toBe(0);
  });

  /** depcruise over a copy of src with `files` added: the same config must judge it. */
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

  // One copy of src holds every case below: each run of depcruise over src takes seconds of CPU.
  it("the rule fails when engine imports the score layer; it is closed: a src/ folder no layer lists fails (importing, imported or alone), and core reaches adapters only through their interfaces, whatever the file or folder is called", () => {
    const { code, out } = withFiles({
      "src/engine/upward.ts": 'import { score } from "../score/score.js";\nexport const s = score;\n',
      // The hole this closes: src/zzz importing cli, imported by engine, passed as no layer named it.
      "src/zzz/x.ts": 'import { EXIT } from "../cli/run.js";\nexport const z = EXIT;\n',
      "src/engine/uses-zzz.ts": 'import { z } from "../zzz/x.js";\nexport const u = z;\n',
      "src/yyy/alone.ts": "export const alone = 1;\n",
      "src/providers/gemini.ts": "export const gemini = 1;\n",
      "src/judge/uses-gemini.ts": 'import { gemini } from "../providers/gemini.js";\nexport const g = gemini;\n',
      "src/sandbox/firecracker/index.ts": "export const vm = 1;\n",
      "src/checks/uses-vm.ts": 'import { vm } from "../sandbox/firecracker/index.js";\nexport const v = vm;\n',
    });
    expect(code).not.toBe(0);
    expect(out).toMatch(/layer-2-points-down: src\/engine\/upward\.ts → src\/score\/score\.ts/);
    expect(out).toMatch(/every-module-in-a-layer: src\/zzz\/x\.ts → src\/cli\/run\.ts/);
    expect(out).toMatch(/every-import-in-a-layer: src\/engine\/uses-zzz\.ts → src\/zzz\/x\.ts/);
    expect(out).toMatch(/every-orphan-in-a-layer: src\/yyy\/alone\.ts/);
    expect(out).toMatch(/core-never-imports-an-adapter: src\/judge\/uses-gemini\.ts → src\/providers\/gemini\.ts/);
    expect(out).toMatch(/core-never-imports-a-sandbox-backend: src\/checks\/uses-vm\.ts → src\/sandbox\/firecracker\/index\.ts/);
  }, 180_000);
});
