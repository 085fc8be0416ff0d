#!/usr/bin/env node
/**
 * The repository's own `rubricate`, for working inside a clone. `npm install` links it as
 * node_modules/.bin/rubricate (scripts/link-dev-bin.mjs), so an example folder's `npm test`
 * (`rubricate env check .`) finds a CLI through npm's parent `.bin` lookup. The published package's
 * bin is dist/cli/main.js; this file is not shipped.
 *
 * It runs the built CLI when dist/ is at least as new as src/, and the sources through tsx otherwise,
 * so a fresh clone works before anything is built and an edit is never hidden by a stale build.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const built = join(root, "dist", "cli", "main.js");

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const useBuilt = existsSync(built) && statSync(built).mtimeMs >= newestMtime(join(root, "src"));
const args = useBuilt
  ? [built, ...process.argv.slice(2)]
  : ["--import", import.meta.resolve("tsx"), join(root, "src", "cli", "main.ts"), ...process.argv.slice(2)];
// One child that owns the terminal; signals reach it and its exit status becomes ours.
const child = spawn(process.execPath, args, { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
