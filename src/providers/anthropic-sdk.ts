/**
 * `@anthropic-ai/sdk`, imported only by `anthropic.ts` through `import()` on a provider's first
 * call. A module of its own so dist/ gets one chunk named for it (`anthropic-sdk-*.js`): tsup
 * bundles the SDK's ~320 files (with OpenTelemetry's API) there (BENCHMARKS.md, issue 31).
 */
export { Anthropic } from "@anthropic-ai/sdk";
