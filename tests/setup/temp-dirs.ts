/**
 * Runs before every test file (vitest.config.ts `setupFiles`): once the file has run, the folders
 * it made with `tempDir` go. Before, every `npm test` left a hundred of them in /tmp.
 */
import { afterAll } from "vitest";
import { removeTempDirs } from "../helpers/cli.js";

afterAll(removeTempDirs);
