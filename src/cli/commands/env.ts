import type { Command } from "commander";
import { checkEnvPackage, type CheckLine } from "../../hub/check.js";
import { initEnvPackage } from "../../hub/init.js";
import { registerFilter } from "../env-filter.js";
import { registerSynth } from "../env-synth.js";
import { EXIT } from "../run.js";

const mark: Record<CheckLine["status"], string> = { ok: "ok  ", warn: "warn", fail: "FAIL" };

/** `rubricate env init|check|synth|filter`: make, vet, fill (tasks drafted from documents) and filter (by pass rate) an environment package. */
export function register(program: Command): void {
  const env = program.command("env").description("Environment packages: scaffold one, check one before publishing, draft tasks from documents (synth), keep the tasks of useful difficulty (filter)");
  env
    .command("init")
    .description("Scaffold an environment package: package.json (a `rubricate` field, rubricate as a peer), env.yaml, rubric.yaml, hooks.ts, tasks.jsonl, tests.yaml, README")
    .argument("<name>", "npm package name, e.g. @acme/times-env")
    .option("--dir <dir>", "folder to create (default: the name without its scope)")
    .option("--description <text>", "package description")
    .action((name: string, flags: { dir?: string; description?: string }) => {
      const files = initEnvPackage(name, flags);
      for (const f of files) process.stdout.write(`created ${f}\n`);
      process.stdout.write(`next: cd ${flags.dir ?? name.replace(/^@[^/]+\//, "")} && npx rubricate env check .\n`);
    });
  env
    .command("check")
    .description("Validate an environment package, lint its rubric, check what npm pack would ship and run its scripted tests (before npm publish)")
    .argument("[dir]", "the package folder", ".")
    .option("--strict", "fail on warnings too")
    .action(async (dir: string, flags: { strict?: boolean }) => {
      const lines = await checkEnvPackage(dir, { onLine: (l) => process.stdout.write(`${mark[l.status]} ${l.what}: ${l.detail}\n`) });
      const failed = lines.some((l) => l.status === "fail" || (flags.strict && l.status === "warn"));
      process.stdout.write(failed ? "env check: FAILED\n" : "env check: ok\n");
      process.exitCode = failed ? EXIT.failure : EXIT.ok;
    });
  registerSynth(env);
  registerFilter(env);
}
