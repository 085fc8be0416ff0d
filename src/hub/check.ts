import { readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { parse } from "yaml";
import { semverLib } from "./lazy.js";
import { loadEnvironment } from "../env/load.js";
import type { Environment } from "../env/types.js";
import { isRubricateError } from "../errors.js";
import { lintRubric } from "../rubric/lint.js";
import { readEnvManifest, type EnvManifest } from "./package.js";
import { packedFiles } from "./packlist.js";
import { loadScriptedTests, runScriptedTest } from "./scripted.js";

/** One line of `rubricate env check`: what was checked and how it went. */
export interface CheckLine {
  status: "ok" | "warn" | "fail";
  what: string;
  detail: string;
}

/**
 * What a maintainer runs before `npm publish`: the package.json (a `rubricate` field, a version,
 * rubricate as a peer dependency), the files `npm pack` would ship, the environment (schema,
 * tasks, hooks), a lint of its rubric, and its scripted tests.
 * @example const lines = await checkEnvPackage("."); lines.some((l) => l.status === "fail")
 */
export async function checkEnvPackage(dir: string, options: { onLine?: (line: CheckLine) => void } = {}): Promise<CheckLine[]> {
  const lines: CheckLine[] = [];
  const add = (status: CheckLine["status"], what: string, detail: string) => {
    const line = { status, what, detail };
    lines.push(line);
    options.onLine?.(line);
  };
  let manifest: EnvManifest;
  try {
    manifest = readEnvManifest(dir);
  } catch (e) {
    add("fail", "package.json", isRubricateError(e) ? e.message : String(e));
    return lines;
  }
  add("ok", "package.json", `${manifest.name}@${manifest.version}, environment ${manifest.env}`);
  if (!semverLib().valid(manifest.version)) add("fail", "version", `"${manifest.version}" is not a semver version (npm refuses to publish it)`);
  const peer = manifest.peerDependencies?.rubricate;
  if (!peer) add("warn", "peerDependencies", `add "peerDependencies": { "rubricate": ">=<version>" }: hooks then import the rubricate that runs them`);
  if (manifest.dependencies?.rubricate) add("warn", "dependencies", "rubricate is a dependency: make it a peer dependency (a second copy has its own check registry)");

  let env: Environment | undefined;
  try {
    env = await loadEnvironment(resolve(dir, manifest.env));
    add("ok", "environment", `${env.id}: ${env.tasks.length} task(s), ${env.rubric.criteria.length} criteria, ${env.harness.tools.length} tool(s)${env.hooks && Object.keys(env.hooks).length ? ", hooks" : ""}`);
    if (String(env.version) !== "1" && String(env.version) !== manifest.version) add("warn", "version", `${manifest.env} says version ${env.version} but package.json says ${manifest.version}; the package's version is the one stamped into results`);
  } catch (e) {
    add("fail", "environment", isRubricateError(e) ? e.message : String(e));
  }

  if (env) {
    const findings = lintRubric(env.rubric);
    const errors = findings.filter((f) => f.severity === "error");
    const warnings = findings.filter((f) => f.severity === "warning");
    for (const f of [...errors, ...warnings]) add(f.severity === "error" ? "fail" : "warn", `lint ${f.criterion}`, `[${f.rule}] ${f.message}`);
    if (errors.length === 0) add("ok", "lint", `${warnings.length} warning(s)`);
  }

  await checkPackedFiles(dir, manifest, env, add);

  if (env) {
    if (!manifest.tests) add("warn", "tests", "no scripted tests: add tests.yaml (see `rubricate env init`) so a change that breaks the rubric or hooks fails here");
    else {
      try {
        const tests = loadScriptedTests(resolve(dir, manifest.tests));
        for (const t of tests) {
          const r = await runScriptedTest(env, t);
          add(r.ok ? "ok" : "fail", `test ${t.name}`, r.ok ? `reward ${r.record?.reward}` : r.failures.join("; "));
        }
      } catch (e) {
        add("fail", "tests", isRubricateError(e) ? e.message : String(e));
      }
    }
  }
  return lines;
}

/** The files `npm pack` would publish must include the environment file and everything it names. */
async function checkPackedFiles(dir: string, manifest: EnvManifest, env: Environment | undefined, add: (s: CheckLine["status"], what: string, detail: string) => void): Promise<void> {
  let files: string[];
  try {
    files = await packedFiles(dir);
  } catch (e) {
    add("fail", "npm pack", `cannot list the files npm would pack: ${isRubricateError(e) ? e.message : String(e)}`);
    return;
  }
  const needed = new Set([manifest.env, ...(manifest.tests ? [manifest.tests] : [])]);
  if (env?.source) {
    const data = parse(readFileSync(env.source, "utf8")) as Record<string, unknown>;
    for (const key of ["dataset", "rubric", "hooks"]) if (typeof data[key] === "string") needed.add(relative(dir, resolve(dirname(env.source), data[key] as string)));
  }
  const missing = [...needed].filter((f) => f && !f.startsWith("..") && !files.includes(f.replace(/^\.\//, "")));
  if (missing.length) add("fail", "npm pack", `the package would not ship ${missing.join(", ")}: add them to "files" in package.json`);
  else add("ok", "npm pack", `${files.length} file(s) would be published`);
}
