import { defineConfig } from "tsup";

/** One entry per public area: `rubricate`, `rubricate/rubric`, `rubricate/judge`, … */
const areas = ["rubric", "checks", "judge", "engine", "score", "env", "calibrate", "optimize", "report", "bridge", "distill", "probe", "draft", "sandbox", "testing", "corpus"];

export default defineConfig({
  entry: {
    index: "src/index.ts",
    "cli/main": "src/cli/main.ts",
    ...Object.fromEntries(areas.map((a) => [`${a}/index`, `src/${a}/index.ts`])),
  },
  format: ["esm", "cjs"],
  dts: { entry: { index: "src/index.ts", ...Object.fromEntries(areas.map((a) => [`${a}/index`, `src/${a}/index.ts`])) } },
  // No source maps in the published build: they were 3.7 MB of the 10.9 MB unpacked (BENCHMARKS.md).
  sourcemap: false,
  clean: true,
  target: "node20",
  splitting: true,
  shims: true,
  // p-limit 7 and p-retry 7 are ESM-only: bundle them so the CommonJS build can require() the package.
  noExternal: ["p-limit", "yocto-queue", "p-retry", "is-network-error"],
  // tsx (a dev dependency) is loaded at run time from the user's project, for .ts environment hooks.
  external: ["tsx", "tsx/esm/api", "tsx/cjs/api"],
});
