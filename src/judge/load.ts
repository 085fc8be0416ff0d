import { existsSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { RubricateError } from "../errors.js";
import { packagedDir, parseConfig, readConfigText } from "../config/load.js";
import { JudgeConfigSchema, type JudgeConfig } from "./config.js";

/**
 * Parses a judge configuration from YAML text; errors name file:line:col like rubric errors.
 * @example parseJudgeConfig("provider: openai\nmodel: gpt-4.1-mini\n", { filename: "j.yaml" })
 */
export function parseJudgeConfig(text: string, options: { filename?: string } = {}): JudgeConfig {
  return parseConfig(text, JudgeConfigSchema, { filename: options.filename, code: "JUDGE_CONFIG" }).value;
}

/** The folder of judge files shipped with the package. */
export function packagedJudgesDir(): string {
  return packagedDir("judges");
}

/**
 * Loads a judge by file path, or by id from the package's `judges/` folder ("openai-small").
 * @example const config = loadJudgeConfig("judges/openai-small.yaml")
 */
export function loadJudgeConfig(ref: string, baseDir = process.cwd()): JudgeConfig {
  const candidates = isAbsolute(ref) ? [ref] : [resolve(baseDir, ref), join(packagedJudgesDir(), ref), join(packagedJudgesDir(), `${ref}.yaml`)];
  const path = candidates.find((p) => existsSync(p) && !p.endsWith("/judges"));
  if (!path) throw new RubricateError("FILE_NOT_FOUND", `no judge file or packaged judge named "${ref}" (looked in ${candidates.join(", ")})`);
  const config = parseJudgeConfig(readConfigText(path, { what: "judge", shown: ref }), { filename: ref });
  return { ...config, id: config.id ?? ref.replace(/^.*\//, "").replace(/\.ya?ml$/, "") };
}
