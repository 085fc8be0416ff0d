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
  ["calibrate", "distill", "env", "hub", "optimize", "probe", "bridge", "draft", "testing"], // features
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

// The rule is closed: a src/ entry missing from `layers` would escape it, so one is an error
// whether it imports, is imported, or stands alone.
const listed = pathOf(layers.flat());
const unlisted = [
  { name: "every-folder-in-a-layer", comment: "add the folder to `layers` in .dependency-cruiser.cjs", severity: "error", from: { path: "^src/", pathNot: listed }, to: {} },
  { name: "every-folder-in-a-layer", comment: "add the folder to `layers` in .dependency-cruiser.cjs", severity: "error", from: { path: "^src/" }, to: { path: "^src/", pathNot: listed } },
  { name: "every-folder-in-a-layer", comment: "add the folder to `layers` in .dependency-cruiser.cjs", severity: "error", from: { orphan: true, path: "^src/", pathNot: listed }, to: {} },
];

module.exports = {
  forbidden: [
    { name: "no-cycles", severity: "error", from: { path: "^src/" }, to: { circular: true } },
    ...upward,
    ...unlisted,
    {
      name: "core-never-imports-an-adapter",
      comment: "engine and above reach providers only through their public face: the Provider interface (types.ts), the factory (index.ts) and the provider table (registry.ts); every other file in providers/ is an adapter",
      severity: "error",
      from: { path: "^src/(engine|checks|rubric|judge|score)/" },
      to: { path: "^src/providers/", pathNot: "^src/providers/(index|types|registry)\\.ts$" },
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
