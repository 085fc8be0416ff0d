import { defineConfig } from "vitest/config";

/** `npm run test:faults`: the fault-injection suite, short and long (tests/faults/long/ is left out of `npm test`). */
export default defineConfig({
  test: {
    include: ["tests/faults/**/*.test.ts"],
    testTimeout: 900_000,
    hookTimeout: 60_000,
    pool: "forks",
    // The scenarios spawn CLI processes and time kills; two at once on two cores only adds noise.
    fileParallelism: false,
  },
});
