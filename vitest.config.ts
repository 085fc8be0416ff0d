import { defineConfig } from "vitest/config";

export default defineConfig({
  // `rubricate` and `rubricate/<area>` resolve to src/ through tsconfig.json's `paths` (examples
  // import the package's entry points, and dist/ is not built on a fresh clone); tsx does the same.
  resolve: { tsconfigPaths: true },
  test: {
    include: ["tests/**/*.test.ts", "rubrics/**/*.test.ts", "examples/**/*.test.ts"],
    exclude: ["tests/faults/long/**", "node_modules/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
