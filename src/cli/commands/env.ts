import { Option, type Command } from "commander";
import type { CheckLine } from "../../hub/check.js";
import { initEnvPackage, packageNameOf } from "../../hub/init.js";
import { BUMPS, publishEnvPackage, type Bump } from "../../hub/publish.js";
import { RubricateError } from "../../errors.js";
import { envInfo, searchEnvs, type EnvInfo, type EnvListing } from "../../hub/registry-search.js";
import { writeFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { registerFilter } from "../env-filter.js";
import { registerSynth } from "../env-synth.js";
import { EXIT, httpUrl } from "../run.js";
import { jsonOption } from "../options.js";
import { textOut, writeJsonResult } from "../io.js";

/** What `env init --template` scaffolds. */
const TEMPLATES = ["basic", "doc-search"] as const;

interface InitFlags {
  template: string;
  docs?: string;
  dir?: string;
  description?: string;
}

const mark: Record<CheckLine["status"], string> = { ok: "ok  ", warn: "warn", fail: "FAIL" };

/** `rubricate env init|check|synth|filter`: make, vet, fill (tasks drafted from documents) and filter (by pass rate) an environment package. */
export function register(program: Command): void {
  const env = program.command("env").description("Environment packages: scaffold, check, publish (push), list, search, info; draft tasks from documents (synth), keep the tasks of useful difficulty (filter)");
  env
    .command("init")
    .description(`Scaffold an environment package: package.json (a \`rubricate\` field, rubricate as a peer), env.yaml, rubric.yaml, hooks.ts, tasks.jsonl, tests.yaml, README; templates: ${TEMPLATES.join(", ")}`)
    .argument("[name]", "npm package name, e.g. @acme/times-env (\"Times Env\" becomes times-env); with --docs, default <docs folder>-env")
    .option("--template <template>", "what to scaffold: basic (a calculator tool) or doc-search (search and read tools over --docs, answers cite the document)", "basic")
    .option("--docs <folder>", "the documents a doc-search package searches (Markdown, text, HTML, PDF): copied into the package and indexed once")
    .option("--dir <dir>", "folder to create (default: the name without its scope)")
    .option("--description <text>", "package description")
    .action(async (requested: string | undefined, flags: InitFlags) => {
      const template = flags.template;
      if (!(TEMPLATES as readonly string[]).includes(template)) throw new RubricateError("BAD_INPUT", `--template ${template}: no such template (templates: ${TEMPLATES.join(", ")})`);
      if (template === "doc-search" && !flags.docs) throw new RubricateError("BAD_INPUT", "--template doc-search needs --docs <folder>: the documents the environment searches");
      if (template !== "doc-search" && flags.docs) throw new RubricateError("BAD_INPUT", "--docs is for --template doc-search (add it, or leave --docs out)");
      const given = requested ?? (flags.docs ? `${basename(resolve(flags.docs))}-env` : undefined);
      if (!given) throw new RubricateError("BAD_INPUT", "env init needs a package name, e.g. rubricate env init @acme/times-env");
      const name = packageNameOf(given);
      if (name !== given) process.stdout.write(`package name: ${name} (npm names are lower case, without spaces)\n`);
      const { dir, description } = flags;
      // The doc-search scaffold reads PDFs and builds a BM25 index: loaded only when asked for.
      const files = flags.docs ? await (await import("../../hub/init-doc-search.js")).initDocSearchPackage(name, { docs: flags.docs, dir, description }) : initEnvPackage(name, { dir, description });
      for (const f of files) process.stdout.write(`created ${f}\n`);
      process.stdout.write(`next: cd ${flags.dir ?? name.replace(/^@[^/]+\//, "")} && npx rubricate env check .\n`);
    });
  env
    .command("check")
    .description("Validate an environment package, lint its rubric, check what npm pack would ship and run its scripted tests (before npm publish)")
    .argument("[dir]", "the package folder", ".")
    .option("--strict", "fail on warnings too")
    .action(async (dir: string, flags: { strict?: boolean }) => {
      // The check plays scripted rollouts (engine, judge, rollout loop): loaded only when it runs.
      const { checkEnvPackage } = await import("../../hub/check.js");
      const lines = await checkEnvPackage(dir, { onLine: (l) => process.stdout.write(`${mark[l.status]} ${l.what}: ${l.detail}\n`) });
      const failed = lines.some((l) => l.status === "fail" || (flags.strict && l.status === "warn"));
      process.stdout.write(failed ? "env check: FAILED\n" : "env check: ok\n");
      process.exitCode = failed ? EXIT.failure : EXIT.ok;
    });
  registerSynth(env);
  registerFilter(env);
  env
    .command("push")
    .description("Publish an environment package to its registry (the scope's in .npmrc, or --registry); refuses content the registry already has")
    .argument("[dir]", "the package folder", ".")
    .option("--registry <url>", "publish here instead of the registry .npmrc names for the package's scope", httpUrl)
    .addOption(new Option("--bump <part>", "raise the version first").choices(BUMPS))
    .addOption(new Option("--access <access>", "npm's --access").choices(["public", "restricted"]))
    .option("--hub <url>", "the hub that shows the package (default $RUBRICATE_HUB)", httpUrl)
    .action(async (dir: string, flags: { registry?: string; bump?: string; access?: string; hub?: string }) => {
      const hub = flags.hub ?? (process.env.RUBRICATE_HUB || undefined);
      const done = await publishEnvPackage(dir, {
        ...(flags.registry ? { registry: flags.registry } : {}),
        ...(flags.bump ? { bump: flags.bump as Bump } : {}),
        ...(flags.access ? { access: flags.access } : {}),
        ...(hub ? { hub } : {}),
        onNotice: (line) => process.stderr.write(`rubricate: ${line}\n`),
      });
      process.stdout.write(`published ${done.name}@${done.version} to ${done.registry}${done.integrity ? ` (${done.integrity})` : ""}\n`);
      process.stdout.write(`install: ${done.install}\n`);
      if (done.hubUrl) process.stdout.write(`hub: ${done.hubUrl}\n`);
    });
  const listing = (rows: EnvListing[], flags: { json?: string }): void => {
    if (flags.json) writeJsonResult(flags.json, rows, writeFileSync);
    const out = textOut(flags.json, (t) => process.stdout.write(t));
    if (rows.length === 0) out("no environment packages found\n");
    else for (const r of rows) out(`${r.name}@${r.version}  ${r.description}\n`);
  };
  env
    .command("list")
    .description("List the environment packages of a registry (the ones carrying the rubricate-environment keyword)")
    .option("--registry <url>", "ask this registry instead of the one .npmrc names", httpUrl)
    .addOption(jsonOption("the list"))
    .action(async (flags: { registry?: string; json?: string }) => listing(await searchEnvs("", flags), flags));
  env
    .command("search")
    .description("Search a registry's environment packages by name, description or keyword")
    .argument("<query>", "words to look for")
    .option("--registry <url>", "ask this registry instead of the one .npmrc names", httpUrl)
    .addOption(jsonOption("the matches"))
    .action(async (query: string, flags: { registry?: string; json?: string }) => listing(await searchEnvs(query, flags), flags));
  env
    .command("info")
    .description("One environment package: README excerpt, versions, task count, rubric criteria and the install command (nothing of it runs)")
    .argument("<package>", "name or name@version (default: latest)")
    .option("--registry <url>", "ask this registry instead of the one .npmrc names for the scope", httpUrl)
    .addOption(jsonOption("the package's details"))
    .action(async (spec: string, flags: { registry?: string; json?: string }) => {
      const info = await envInfo(spec, flags);
      if (flags.json) writeJsonResult(flags.json, info, writeFileSync);
      textOut(flags.json, (t) => process.stdout.write(t))(infoText(info));
    });
}

function infoText(i: EnvInfo): string {
  const tags = Object.entries(i.distTags).map(([t, v]) => `${t}: ${v}`).join(", ");
  return [
    `${i.name}@${i.version}${i.description ? ` — ${i.description}` : ""}`,
    `versions: ${i.versions.join(", ")}${tags ? ` (${tags})` : ""}`,
    ...(i.integrity ? [`integrity: ${i.integrity}`] : []),
    `tasks: ${i.tasks ?? "unknown"}`,
    `criteria (${i.criteria.length}):`,
    ...i.criteria.map((c) => `  - ${c.id}${c.points !== undefined ? ` (${c.points} pt)` : ""}: ${c.what}`),
    `install: ${i.install}`,
    "",
    i.readme,
    "",
  ].join("\n");
}
