/**
 * The `openai` SDK, imported only by `openai.ts` through `import()` on a provider's first call.
 * A module of its own so dist/ gets one chunk named for it (`openai-sdk-*.js`): tsup bundles the
 * SDK's ~150 files there, which loads in a fraction of the time (BENCHMARKS.md, issue 31).
 */
export { OpenAI } from "openai";
