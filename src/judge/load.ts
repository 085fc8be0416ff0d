import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { RubricateError } from "../errors.js";
import { explainIssues } from "../config/issues.js";
import { joinIssues, parseYamlSource } from "../config/yaml-source.js";
import { JudgeConfigSchema, type JudgeConfig } from "./config.js";

/**
 * Parses a judge configuration from YAML text; errors name file:line:col like rubric errors.
 * @example parseJudgeConfig("provider: openai\nmodel: gpt-4.1-mini\n", { filename: "j.yaml" })
 */
export function parseJudgeConfig(text: string, options: { filename?: string } = {}): JudgeConfig {
  const source = parseYamlSource(text, options);
  const parsed = JudgeConfigSchema.safeParse(source.data ?? {});
  if (!parsed.success) {
    const issues = explainIssues(parsed.error, source.data, { schema: JudgeConfigSchema }).map((i) => ({
      message: i.message,
      location: source.locate(i.path, { key: i.key }),
    }));
    throw new RubricateError("JUDGE_CONFIG", joinIssues(issues), { location: issues[0].location, issues });
  }
  return parsed.data;
}

/** The folder of judge files shipped with the package. */
export function packagedJudgesDir(): string {
  // Walk up from this module to the package root (src/judge in development, dist/ when built).
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "judges"))) return join(dir, "judges");
    dir = dirname(dir);
  }
  return resolve("judges");
}

/**
 * Loads a judge by file path, or by id from the package's `judges/` folder ("openai-small").
 * @example const config = loadJudgeConfig("judges/openai-small.yaml")
 */
export function loadJudgeConfig(ref: string, baseDir = process.cwd()): JudgeConfig {
  const candidates = isAbsolute(ref) ? [ref] : [resolve(baseDir, ref), join(packagedJudgesDir(), ref), join(packagedJudgesDir(), `${ref}.yaml`)];
  const path = candidates.find((p) => existsSync(p) && !p.endsWith("/judges"));
  if (!path) throw new RubricateError("FILE_NOT_FOUND", `no judge file or packaged judge named "${ref}" (looked in ${candidates.join(", ")})`);
  const config = parseJudgeConfig(readFileSync(path, "utf8"), { filename: ref });
  return { ...config, id: config.id ?? ref.replace(/^.*\//, "").replace(/\.ya?ml$/, "") };
}
