import { existsSync } from "node:fs";
import * as z from "zod";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { RubricateError } from "../errors.js";
import { packagedDir, parseConfig, readConfigText } from "../config/load.js";
import { explainIssues } from "../config/issues.js";
import { joinIssues, parseYamlSource } from "../config/yaml-source.js";
import { JudgeConfigSchema, type JudgeConfig } from "./config.js";
import { providerSpec } from "../providers/registry.js";

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

/** A panel file: `panel:` lists two or more judge files or packaged ids (relative to the panel file). */
const PanelFileSchema = z.strictObject({
  id: z.string().optional(),
  description: z.string().optional(),
  panel: z.array(z.string().min(1)).min(2).describe("Two or more judge files or packaged judge ids; an odd number avoids ties"),
  decide: z.enum(["majority", "mean"]).default("majority").describe("The panel's verdict: the members' majority (default), or their mean P(yes) > 0.5; a criterion's threshold applies to the mean either way"),
});

/** A judge file read: one judge's configuration, or a panel of judges. */
export type JudgeFile = { kind: "judge"; config: JudgeConfig } | { kind: "panel"; id: string; members: string[]; baseDir: string; decide: "majority" | "mean" };

/**
 * Reads a judge file or packaged id that may be a panel (`panel: [openai-small, anthropic-small, local]`).
 * @example readJudgeFile("judges/panel.yaml") // { kind: "panel", id: "panel", members: [...] }
 */
export function readJudgeFile(ref: string, baseDir = process.cwd()): JudgeFile {
  const path = judgePath(ref, baseDir);
  // The same size and regular-file limits as every configuration file: a judge file may come
  // from a downloaded environment package.
  const text = readConfigText(path, { what: "judge", shown: ref });
  const source = parseYamlSource(text, { filename: ref });
  const data = source.data as Record<string, unknown> | undefined;
  if (data && typeof data === "object" && "panel" in data) {
    const parsed = PanelFileSchema.safeParse(data);
    if (!parsed.success) {
      const issues = explainIssues(parsed.error, source.data, { schema: PanelFileSchema }).map((i) => ({ message: i.message, location: source.locate(i.path, { key: i.key }) }));
      throw new RubricateError("JUDGE_CONFIG", joinIssues(issues), { location: issues[0].location, issues });
    }
    return { kind: "panel", id: parsed.data.id ?? ref.replace(/^.*\//, "").replace(/\.ya?ml$/, ""), members: parsed.data.panel, baseDir: dirname(path), decide: parsed.data.decide };
  }
  return { kind: "judge", config: loadJudgeConfig(ref, baseDir) };
}

/** The file a judge reference names: a path from `baseDir`, or a packaged judge id. */
export function judgePath(ref: string, baseDir: string): string {
  const candidates = isAbsolute(ref) ? [ref] : [resolve(baseDir, ref), join(packagedJudgesDir(), ref), join(packagedJudgesDir(), `${ref}.yaml`)];
  const path = candidates.find((p) => existsSync(p) && !p.endsWith("/judges"));
  if (!path) throw new RubricateError("FILE_NOT_FOUND", `no judge file or packaged judge named "${ref}" (looked in ${candidates.join(", ")})`);
  return path;
}

/**
 * Loads a judge by file path, or by id from the package's `judges/` folder ("openai-small").
 * @example const config = loadJudgeConfig("judges/openai-small.yaml")
 */
export function loadJudgeConfig(ref: string, baseDir = process.cwd()): JudgeConfig {
  const path = judgePath(ref, baseDir);
  const config = parseJudgeConfig(readConfigText(path, { what: "judge", shown: ref }), { filename: ref });
  return { ...config, id: config.id ?? ref.replace(/^.*\//, "").replace(/\.ya?ml$/, "") };
}

/** Where a judge reference came from: the user (a `--judge` flag, code) or a rubric's `judge:` field. */
export type JudgeOrigin = "user" | "rubric";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

/** The file a judge reference resolves to (undefined for a packaged id or when missing) and whether it is a packaged judge. */
export function judgeSource(ref: string, baseDir = process.cwd()): { path?: string; packaged: boolean } {
  const candidates = isAbsolute(ref) ? [ref] : [resolve(baseDir, ref), join(packagedJudgesDir(), ref), join(packagedJudgesDir(), `${ref}.yaml`)];
  const path = candidates.find((p) => existsSync(p) && !p.endsWith("/judges"));
  return { path, packaged: path !== undefined && resolve(path).startsWith(resolve(packagedJudgesDir()) + "/") };
}

/**
 * A shared rubric must not be able to send the user's API key anywhere: a judge named by a
 * rubric's `judge:` field (not a packaged judge) may send a key only to the provider's own host
 * or to loopback. Anything else needs the user's own choice (`--judge`). Throws JUDGE_CONFIG.
 * @example assertRubricJudgeKeyDestination(loadJudgeConfig("j.yaml"), "j.yaml")
 */
export function assertRubricJudgeKeyDestination(config: JudgeConfig, ref: string, baseDir = process.cwd()): void {
  assertKeyDestination(config, ref, baseDir, `the rubric's judge "${ref}"`);
}

/**
 * The rule of `assertRubricJudgeKeyDestination` applied to every judge a file can produce: the
 * file itself, or each member of a panel (and of panels inside it), members resolved beside
 * their panel file. Throws JUDGE_CONFIG naming the member at fault.
 * @example assertJudgeFileKeyDestinations("./panel.yaml", dirname(rubric.source))
 */
export function assertJudgeFileKeyDestinations(ref: string, baseDir = process.cwd()): void {
  for (const judge of judgeConfigsOf(ref, baseDir)) {
    const what = judge.panel === undefined ? `the rubric's judge "${ref}"` : `the rubric's judge "${ref}" (panel member "${judge.ref}")`;
    assertKeyDestination(judge.config, judge.ref, judge.baseDir, what);
  }
}

/**
 * Every judge configuration a judge file produces (one, or a panel's members, depth first), with
 * where each was resolved and the panel it belongs to. Loading them validates the whole file.
 * @example judgeConfigsOf("judges/panel.yaml").map((j) => j.config.model)
 */
export function judgeConfigsOf(ref: string, baseDir = process.cwd(), panel?: string, seen = new Set<string>()): { ref: string; baseDir: string; config: JudgeConfig; panel?: string }[] {
  const file = readJudgeFile(ref, baseDir);
  if (file.kind === "judge") return [{ ref, baseDir, config: file.config, panel }];
  const path = judgePath(ref, baseDir);
  if (seen.has(path)) throw new RubricateError("JUDGE_CONFIG", `panel ${ref} includes itself`);
  seen.add(path);
  return file.members.flatMap((member) => judgeConfigsOf(member, file.baseDir, ref, seen));
}

function assertKeyDestination(config: JudgeConfig, ref: string, baseDir: string, what: string): void {
  if (judgeSource(ref, baseDir).packaged) return;
  const spec = providerSpec(config.provider);
  const keyEnv = config.api_key_env ?? spec?.keyEnv;
  if (!keyEnv || config.base_url === undefined) return;
  const urls = Array.isArray(config.base_url) ? config.base_url : [config.base_url];
  for (const url of urls) {
    let host = "";
    try {
      host = new URL(url).hostname;
    } catch {
      host = url;
    }
    if (LOOPBACK.has(host) || (spec?.hosts ?? []).includes(host)) continue;
    throw new RubricateError(
      "JUDGE_CONFIG",
      `${what} would send $${keyEnv} to ${host}, a host you did not choose; a rubric cannot pick where your key goes: pass --judge ${ref} to choose that judge yourself, or another --judge`,
    );
  }
}
