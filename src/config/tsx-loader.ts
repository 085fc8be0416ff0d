import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * tsx's ES module API (its `register`) as a file URL, found from `from`, for a worker thread that
 * loads TypeScript sources: a worker does not inherit the main thread's tsx loader, so it registers
 * its own first. Not `require.resolve`, which gives tsx's CommonJS build (whose `register` cannot
 * load its hooks), nor `import.meta.resolve`, which the CommonJS build of rubricate lacks.
 */
export function tsxLoaderURL(from: string | URL): string {
  const manifest = createRequire(from).resolve("tsx/package.json");
  const { exports } = JSON.parse(readFileSync(manifest, "utf8")) as { exports: Record<string, { import: { default: string } }> };
  return pathToFileURL(join(dirname(manifest), exports["./esm/api"].import.default)).href;
}
