/**
 * The layering rule (docs/DESIGN.md): a folder may import folders of its own layer or below,
 * never above, and nothing may form a cycle. `npm run lint:layers` runs this in CI (via npm test).
 * Lowest first; a layer's folders are siblings.
 */
const layers = [
  ["errors\\.ts", "types\\.ts", "config", "stats", "text", "report"], // shared leaves
  ["providers", "sandbox"], // wire adapters and runtimes
  ["engine"], // calls, cache, scheduler, batch runner
  ["checks"],
  ["rubric"],
  ["judge"],
  ["score"],
  ["calibrate", "distill", "env", "hub", "optimize", "probe", "bridge", "draft", "queue", "testing"], // features
  ["cli", "index\\.ts"],
];
const pathOf = (names) => `^src/(${names.join("|")})($|/)`;
const upward = layers.slice(0, -1).map((names, i) => ({
  name: `layer-${i}-points-down`,
  comment: `src/{${names.join(",")}} may not import a higher layer`,
  severity: "error",
  from: { path: pathOf(names) },
  to: { path: pathOf(layers.slice(i + 1).flat()) },
}));

module.exports = {
  forbidden: [
    { name: "no-cycles", severity: "error", from: { path: "^src/" }, to: { circular: true } },
    ...upward,
    {
      name: "core-never-imports-an-adapter",
      comment: "engine and above reach providers through the Provider interface (providers/types.ts) or the factory (providers/index.ts)",
      severity: "error",
      from: { path: "^src/(engine|checks|rubric|judge|score)/" },
      to: { path: "^src/providers/(openai|anthropic|fleet|http-fetch|openai-batch|anthropic-batch)" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    includeOnly: "^src/",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"], extensions: [".ts", ".js"] },
  },
};
