#!/usr/bin/env node
/**
 * Checks the package as consumers get it: publint (package.json fields, exports targets, files) and
 * @arethetypeswrong/cli (the types each export condition resolves to, e.g. that a CommonJS
 * TypeScript consumer gets `.d.cts` types and not the ESM `.d.ts`).
 *
 *   node scripts/lint-package.mjs              builds if dist/ is missing or older than src/, packs, lints
 *   node scripts/lint-package.mjs pkg.tgz      lints a tarball already packed (tests/package.test.ts)
 *
 * publint runs through its API so that a suggestion fails the lint too (its CLI exits 0 on one).
 * attw runs with the node16 profile: the package needs Node 20.19 or later, and `moduleResolution: node10`
 * cannot see subpath exports at all, so its failures there say nothing about this package.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { publint } from "publint";
import { formatMessage } from "publint/utils";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

/** The newest modification time of any file under `dir`. */
function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

function buildIfNeeded() {
  const built = join(ROOT, "dist", "index.js");
  const stale = !existsSync(built) || newest(join(ROOT, "src")) > statSync(built).mtimeMs;
  if (stale) execFileSync(NPM, ["run", "build"], { cwd: ROOT, stdio: "inherit" });
}

/** Runs a dev dependency's bin with this Node, so it works without node_modules/.bin on PATH. */
function runBin(pkg, bin, args) {
  const home = join(ROOT, "node_modules", pkg);
  const manifest = JSON.parse(readFileSync(join(home, "package.json"), "utf8"));
  const entry = join(home, typeof manifest.bin === "string" ? manifest.bin : manifest.bin[bin]);
  execFileSync(process.execPath, [entry, ...args], { cwd: ROOT, stdio: "inherit" });
}

/** Every publint message, suggestions included, is a failure: the lint is meant to stay clean. */
async function runPublint(path) {
  const bytes = readFileSync(path);
  const { messages, pkg } = await publint({ pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) }, level: "suggestion", strict: true });
  for (const message of messages) console.log(`publint ${message.type}: ${formatMessage(message, pkg, { color: false })}`);
  if (messages.length > 0) throw new Error(`publint found ${messages.length} problem(s)`);
  console.log("publint: no problems");
}

let tarball = process.argv[2] ? resolve(process.argv[2]) : undefined;
let scratch;
try {
  if (!tarball) {
    buildIfNeeded();
    scratch = mkdtempSync(join(tmpdir(), "rubricate-lint-package-"));
    const name = execFileSync(NPM, ["pack", "--silent", "--pack-destination", scratch], { cwd: ROOT, encoding: "utf8" }).trim().split("\n").at(-1);
    tarball = join(scratch, name);
  }
  // Both run even when the first fails, so one run shows every finding.
  const failures = [];
  await runPublint(tarball).catch((error) => failures.push(error.message));
  try {
    runBin("@arethetypeswrong/cli", "attw", ["--profile", "node16", "--format", "table-flipped", "--no-emoji", "--no-color", tarball]);
  } catch {
    failures.push("attw found problems (above)");
  }
  if (failures.length > 0) throw new Error(failures.join("; "));
} catch (error) {
  // The tools have printed their findings; a stack trace here would only bury them.
  console.error(`lint:package failed: ${error.message.split("\n")[0]}`);
  process.exitCode = 1;
} finally {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}
