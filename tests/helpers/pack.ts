import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { inject } from "vitest";
import { ROOT } from "./cli.js";

const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

/**
 * `npm pack` of this checkout into `dest`, as a user gets the package: the run's one build of
 * `dist/` (tests/setup/build.ts, so the file must be one of the `built` project's) and the
 * package.json `files`. Returns the tarball's path.
 */
export function packBuilt(dest: string): string {
  if (!inject("rubricateDist")) throw new Error("packBuilt needs the built package: add the test file to vitest.config.ts's built files");
  const out = execFileSync(NPM, ["pack", "--ignore-scripts", "--pack-destination", dest], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, npm_config_update_notifier: "false" } });
  return join(dest, out.trim().split("\n").at(-1)!);
}
