/** The committed order of slow files names files that exist: a renamed or split file would silently lose its place. */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ROOT } from "../helpers/cli.js";
import { SLOW_FILES } from "./sequencer.js";

it("every file in SLOW_FILES exists", () => {
  const missing = Object.keys(SLOW_FILES).filter((path) => !existsSync(join(ROOT, path)));
  expect(missing).toEqual([]);
  expect(Object.keys(SLOW_FILES).length).toBeGreaterThan(10);
});
