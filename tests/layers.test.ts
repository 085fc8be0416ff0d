import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

  it("the rule fails when engine imports the score layer", () => {
    // A copy of src with one upward import added: the same config must reject it.
    const dir = mkdtempSync(join(tmpdir(), "rubricate-layers-"));
    try {
      cpSync("src", join(dir, "src"), { recursive: true });
      for (const f of [".dependency-cruiser.cjs", "tsconfig.json", "package.json"]) cpSync(f, join(dir, f));
      writeFileSync(join(dir, "src/engine/upward.ts"), 'import { score } from "../score/score.js";\nexport const s = score;\n');
      const { code, out } = depcruise(dir);
      expect(code).not.toBe(0);
      expect(out).toMatch(/layer-2-points-down: src\/engine\/upward\.ts → src\/score\/score\.ts/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
