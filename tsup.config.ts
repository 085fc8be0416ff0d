import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { defineConfig } from "tsup";
import type { Plugin } from "esbuild";
import { BUNDLED, bundledPattern } from "./scripts/bundled.js";

/**
 * zod's `z.locales` re-exports its ~50 message translations (370 kB of the bundled 750 kB), which
 * every start-up would parse. rubricate's messages are English (the default zod registers itself),
 * and the bundled zod is private to the package, so its `locales` namespace keeps English only.
 */
const englishOnlyZod: Plugin = {
  name: "english-only-zod",
  setup(build) {
    build.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      // A path relative to the project: esbuild writes it into the bundle's comments, and the build machine's folders have no place in the tarball.
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: relative(process.cwd(), join(dirname(args.importer), args.path)), namespace: "zod-locales" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({ contents: 'export { default as en } from "./en.js";', resolveDir: dirname(resolve(args.path)) }));
  },
};

/**
 * The `openai` SDK's request building names the fetch globals `Headers` and `FormData` on every
 * call, and in Node 20 either one loads undici (~30 ms of CPU) though `nodeHttpFetch` sends a JSON
 * call over node:http without it. In the three files that do, the bundle gives them
 * src/providers/sdk-web.ts's stand-ins instead (a Map-backed `Headers`, cheaper per call too, and
 * `instanceof` tests that read the object's tag); uploads keep the real `FormData`.
 */
const SDK_WEB_FILES = /[\\/]node_modules[\\/]openai[\\/](client|internal[\\/]headers|internal[\\/]utils[\\/]log)\.m?js$/;
const sdkWebGlobals: Plugin = {
  name: "sdk-web-globals",
  setup(build) {
    const shim = JSON.stringify(resolve("src/providers/sdk-web.ts"));
    build.onLoad({ filter: SDK_WEB_FILES }, async (args) => {
      const source = await readFile(args.path, "utf8");
      if (args.path.endsWith(".mjs")) return { contents: `import { SdkHeaders as Headers, SdkFormData as FormData } from ${shim};\n${source}`, loader: "js" };
      // CommonJS: after its "use strict" directive, which must stay first to keep the file strict.
      const strict = /^"use strict";\n/.exec(source)?.[0] ?? "";
      return { contents: `${strict}const { SdkHeaders: Headers, SdkFormData: FormData } = require(${shim});\n${source.slice(strict.length)}`, loader: "js" };
    });
  },
};

/**
 * The bundles package.json promises, as entries: each "exports" path's ESM file and each "bin"
 * (`./dist/<name>.js` built from `src/<name>.ts`: `rubricate`, `rubricate/rubric`, …, the CLI).
 * Read from package.json, as scripts/build-types.mjs reads the declarations' entries, so a new
 * area is one line there and the two builds cannot disagree.
 */
function packageEntries(): Record<string, string> {
  const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { exports: Record<string, { import?: { default?: string } } | string>; bin: Record<string, string> };
  const files = [...Object.values(pkg.exports).map((target) => (typeof target === "string" ? target : target.import?.default)), ...Object.values(pkg.bin)];
  const bundles = files.filter((file): file is string => typeof file === "string" && /^\.\/dist\/.+\.js$/.test(file));
  if (bundles.length === 0) throw new Error('package.json "exports" and "bin" name no ./dist/*.js file');
  return Object.fromEntries(bundles.map((file) => file.slice("./dist/".length, -".js".length)).map((name) => [name, `src/${name}.ts`]));
}

export default defineConfig({
  // Besides the package's entries, the guarded workers of the math check and of regexes (src/checks/guarded-worker.ts finds each beside the chunk that starts it).
  entry: { ...packageEntries(), "math-worker": "src/checks/math/compare-worker.ts", "regex-worker": "src/checks/regex-worker.ts", "client-checks-worker": "src/checks/client-checks-worker.ts" },
  format: ["esm", "cjs"],
  // The type declarations are built apart, by tsc and rollup-plugin-dts (scripts/build-types.mjs):
  // tsup's dts took ~4x the CPU for the same bundles.
  dts: false,
  // No source maps in the published build: they were 3.7 MB of the 10.9 MB unpacked (BENCHMARKS.md).
  sourcemap: false,
  clean: true,
  target: "node20",
  splitting: true,
  shims: true,
  // Bundled (scripts/bundled.ts): p-limit 7 and p-retry 7 are ESM-only, bundled so the CommonJS
  // build can require() the package. zod (95 ES modules) and yaml (73 CommonJS files) load with every
  // rubric: as one bundled chunk they cost the module loader one file each instead of ~170, which is
  // most of `import "rubricate"`'s start-up over bare node (BENCHMARKS.md, issue 31).
  // The provider SDKs likewise (openai ~150 files, @anthropic-ai/sdk ~320 with OpenTelemetry's API
  // and standardwebhooks): each lands in the chunk of the module that re-exports it
  // (src/providers/*-sdk.ts), loaded by `import()` on a provider's first call; one file instead of
  // hundreds cuts their load from ~60 ms and ~150 ms of CPU to ~10 ms and ~40 ms (BENCHMARKS.md).
  // The small CommonJS packages of every start-up (fastest-levenshtein with the root, commander and
  // bytes with the CLI) likewise: a CommonJS file imported from an ES module goes through the
  // CommonJS loader and its export lexer, ~8 ms for commander's 7 files against ~1 ms bundled.
  noExternal: BUNDLED.map(bundledPattern),
  // A bundled CommonJS module's require() of a Node built-in (commander's "node:events"…) needs a
  // `require` in an ES module chunk; made on first call, so a chunk that never requires pays nothing.
  banner: ({ format }) => (format === "esm" ? { js: 'import { createRequire as __rubricateCreateRequire } from "node:module";\nlet __rubricateRequire;\nconst require = (id) => (__rubricateRequire ??= __rubricateCreateRequire(import.meta.url))(id);' } : {}),
  // yaml's "node" build is CommonJS that require()s "process", which an ES module bundle cannot; its
  // ES module build (the package's "default" condition) is the same code, logging warnings with
  // console.warn instead of process.emitWarning.
  esbuildOptions(options) {
    options.alias = { ...options.alias, yaml: "./node_modules/yaml/browser/index.js" };
  },
  esbuildPlugins: [englishOnlyZod, sdkWebGlobals],
  // tsx (a dev dependency) is loaded at run time from the user's project, for .ts environment hooks.
  external: ["tsx", "tsx/esm/api", "tsx/cjs/api"],
});
