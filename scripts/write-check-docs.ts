// Rewrites the generated docs tables: the check kinds in docs/writing-rubrics.md (from
// src/checks/kinds.ts) and the sandbox backends in docs/environments.md (from
// src/sandbox/registry.ts). tests/checks/docs.test.ts and tests/sandbox/registry.test.ts fail
// while either is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { withCheckKindsTable } from "../src/checks/docs.js";
import { withSandboxBackendsTable } from "../src/sandbox/registry.js";

const rewrite = (file: string, generate: (text: string) => string) => {
  const path = new URL(`../docs/${file}`, import.meta.url);
  writeFileSync(path, generate(readFileSync(path, "utf8")));
};
rewrite("writing-rubrics.md", (text) => withCheckKindsTable(text));
rewrite("environments.md", (text) => withSandboxBackendsTable(text));
