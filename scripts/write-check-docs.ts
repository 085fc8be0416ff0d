// Rewrites the generated check kinds table in docs/writing-rubrics.md from src/checks/kinds.ts
// (tests/checks/docs.test.ts fails while it is stale).
import { readFileSync, writeFileSync } from "node:fs";
import { withCheckKindsTable } from "../src/checks/docs.js";

const path = new URL("../docs/writing-rubrics.md", import.meta.url);
writeFileSync(path, withCheckKindsTable(readFileSync(path, "utf8")));
