/**
 * `npm install` in a clone (the `prepare` script): links scripts/dev-bin.mjs as
 * node_modules/.bin/rubricate, so `npm test` inside an example folder finds the repository's CLI.
 * npm does not link a package's own bin into its own node_modules. Not run for registry installs.
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const target = join(root, "scripts", "dev-bin.mjs");
const binDir = join(root, "node_modules", ".bin");
const link = join(binDir, "rubricate");

if (existsSync(join(root, "node_modules"))) {
  mkdirSync(binDir, { recursive: true });
  if (existsSync(link) || isDanglingLink(link)) rmSync(link);
  symlinkSync(relative(binDir, target), link);
  chmodSync(target, 0o755);
}

function isDanglingLink(path) {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
