// Writes dist/'s type declarations: one bundled .d.ts (import) and .d.cts (require) per public
// entry, the package.json "exports" types. Two steps: `tsc` emits a declaration per source file
// (tsconfig.types.json) into a temporary folder, then rollup with rollup-plugin-dts bundles those
// into the entries and their shared chunks. tsup's `dts` built the same bundles from the sources in
// ~65-77 s of CPU on the 2-core machine; this takes ~12-14 s, tsc checking nothing it does not need
// to name a type (BENCHMARKS.md, "The type declarations").
// Run after the JavaScript build (tsup cleans dist/): `npm run build` does, and tests/setup/build.ts.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { promisify } from "node:util";
import { rollup } from "rollup";
import { dts } from "rollup-plugin-dts";

const ROOT = resolve(import.meta.dirname, "..");

/**
 * The entries, read from what package.json promises: each "exports" path's `import.types`
 * (`./dist/rubric/index.d.ts` is the entry `rubric/index`, bundled from the emitted
 * `rubric/index.d.ts`); its `require.types` is the same entry's .d.cts.
 */
function entries() {
  const { exports } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  const names = Object.values(exports).flatMap((target) => {
    const types = target?.import?.types;
    return typeof types === "string" ? [types.replace(/^\.\/dist\//, "").replace(/\.d\.ts$/, "")] : [];
  });
  if (names.length === 0) throw new Error("package.json \"exports\" names no import types");
  return names;
}

/** Runs TypeScript's own `bin` (no npx start) with `args`; its diagnostics become the error's message. */
async function tsc(args) {
  const manifest = join(ROOT, "node_modules", "typescript", "package.json");
  const { bin } = JSON.parse(readFileSync(manifest, "utf8"));
  try {
    await promisify(execFile)(process.execPath, [join(dirname(manifest), bin.tsc), ...args], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  } catch (e) {
    throw new Error(`tsc ${args.join(" ")} failed:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
}

/** A bare specifier (`zod`, `node:http`): the package's own types stay imports, as its dependencies are. */
const isPackage = (id) => !id.startsWith(".") && !isAbsolute(id);

/** A shared chunk's file name: its first module's name and a content hash (`engine-FeCQVDwa.d.cts`). */
const chunkName = (ext) => (chunk) => `${chunk.name.replace(/\.d$/, "")}-[hash].${ext}`;

/**
 * Rollup's warnings: circular imports between declaration files are harmless and dropped. A type a
 * public signature uses but no entry exports fails the build: a consumer's declaration emit could
 * not name it (TS2742), so it must be exported from the area whose functions take or return it.
 */
function onwarn(warning, warn) {
  if (warning.code === "CIRCULAR_DEPENDENCY") return;
  if (warning.plugin === "dts" && /private shared type/.test(warning.message)) throw new Error(`${warning.message.replace(/ rollup-plugin-dts will not.*$/s, "")} Export it from that entry's index.ts.`);
  warn(warning);
}

/** Emits the per-file declarations, bundles them into dist/, and removes the temporary folder. */
export async function buildTypes() {
  // Outside node_modules: rollup-plugin-dts treats every file under a node_modules folder as an
  // external library and would leave the entries' relative imports unbundled.
  const emitted = mkdtempSync(join(tmpdir(), "rubricate-types-"));
  try {
    // --noCheck: declarations without checking every function body, which `npm run typecheck`
    // does (and CI runs): ~11 s of CPU instead of ~21 s on the 2-core machine, the same files
    // but for the order of a union's members.
    await tsc(["-p", "tsconfig.types.json", "--outDir", emitted, "--noCheck"]);
    const input = Object.fromEntries(entries().map((name) => [name, join(emitted, `${name}.d.ts`)]));
    const bundle = await rollup({ input, external: isPackage, plugins: [dts({ tsconfig: join(ROOT, "tsconfig.types.json") })], onwarn });
    try {
      for (const ext of ["d.ts", "d.cts"]) {
        await bundle.write({ dir: join(ROOT, "dist"), format: "es", entryFileNames: `[name].${ext}`, chunkFileNames: chunkName(ext) });
      }
    } finally {
      await bundle.close();
    }
  } finally {
    rmSync(emitted, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) await buildTypes();
