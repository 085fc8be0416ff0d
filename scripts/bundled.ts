/**
 * The packages whose code the build copies into dist/ (tsup.config.ts's `noExternal`), each with
 * its subpaths. Their code ships inside the package, so they are devDependencies: a user's install
 * would otherwise fetch ~50 MB it never loads. zod is the exception, a dependency too, because the
 * .d.ts files import its types. The code still runs on the user's Node, so tests/engines.test.ts
 * checks their Node ranges as it checks the dependencies'; tests/package.test.ts checks this list
 * against what dist/ holds.
 */
export const BUNDLED: readonly string[] = [
  // p-limit 7 and p-retry 7 are ESM-only: bundled, the CommonJS build can require() the package.
  ...["p-limit", "yocto-queue", "p-retry", "is-network-error"],
  // zod and yaml load with every rubric: one chunk each instead of ~170 files for the module loader.
  ...["zod", "yaml"],
  // The provider SDKs, each in the chunk its src/providers/*-sdk.ts loads on a provider's first call.
  ...["openai", "@anthropic-ai/sdk", "@opentelemetry/api", "standardwebhooks", "@stablelib/base64", "fast-sha256"],
  // The small CommonJS packages of every start-up: the root's, and the CLI's.
  ...["fastest-levenshtein", "commander", "bytes"],
  // The hub's reading of client addresses (the parser Express's proxy-addr uses), 10 kB.
  "ipaddr.js",
];

/** A package and its subpaths (`@anthropic-ai/sdk/resources/…`), as a pattern for esbuild's resolver. */
export const bundledPattern = (name: string): RegExp => new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}(?:/|$)`);
