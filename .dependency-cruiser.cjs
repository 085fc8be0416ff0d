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
  ["calibrate", "corpus", "distill", "env", "hub", "optimize", "probe", "bridge", "draft", "queue", "testing", "site"], // features (site: the hub web app)
  ["cli", "index\\.ts"],
];
const pathOf = (names) => `^src/(${names.join("|")})($|/)`;
// The rule is closed: a folder or file of src/ that no layer lists is itself an error, so a new
// folder cannot escape the layering by being left out of this list.
const listed = pathOf(layers.flat());
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
      name: "every-module-in-a-layer",
      comment: "each src/ folder (and top-level file) must be listed in a layer of .dependency-cruiser.cjs",
      severity: "error",
      from: { path: "^src/", pathNot: listed },
      to: {},
    },
    {
      name: "every-import-in-a-layer",
      comment: "each src/ folder (and top-level file) must be listed in a layer of .dependency-cruiser.cjs",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^src/", pathNot: listed },
    },
    {
      name: "every-orphan-in-a-layer",
      comment: "each src/ folder (and top-level file) must be listed in a layer of .dependency-cruiser.cjs",
      severity: "error",
      from: { orphan: true, path: "^src/", pathNot: listed },
      to: {},
    },
    {
      name: "core-never-imports-an-adapter",
      comment: "engine and above reach providers only through their public face: the Provider interface (types.ts), the factory (index.ts) and the provider table (registry.ts); every other file in providers/ is an adapter",
      severity: "error",
      from: { path: "^src/(engine|checks|rubric|judge|score)/" },
      to: { path: "^src/providers/", pathNot: "^src/providers/(index|types|registry)\\.ts$" },
    },
    {
      name: "core-never-imports-a-sandbox-backend",
      comment: "engine and above reach sandboxes through the Sandbox interface (sandbox/types.ts and the files beside it): each backend is a folder of src/sandbox/, whatever its name",
      severity: "error",
      from: { path: "^src/(engine|checks|rubric|judge|score)/" },
      to: { path: "^src/sandbox/[^/]+/" },
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
