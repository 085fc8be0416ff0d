import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import type Npa from "npm-package-arg";
import { npmPackageArg } from "./lazy.js";
import { RubricateError } from "../errors.js";
import { defaultEvalOut, ENV_KEYWORD, rubricateVersion } from "./package.js";

/**
 * The package.json of a scaffolded environment: the `rubricate` field, the keyword registries are
 * searched by, rubricate as an optional peer (npm then does not fetch it with the environment: a
 * private registry without rubricate would fail E404; rubricate itself installs and runs it).
 */
export function scaffoldPackageJson(pkg: { name: string; description: string; files: string[] }): string {
  const version = rubricateVersion();
  const json = {
    name: pkg.name,
    version: "0.1.0",
    description: pkg.description,
    type: "module",
    keywords: [ENV_KEYWORD],
    rubricate: "env.yaml",
    files: pkg.files,
    scripts: { test: "rubricate env check ." },
    peerDependencies: { rubricate: `>=${version}` },
    peerDependenciesMeta: { rubricate: { optional: true } },
    devDependencies: { rubricate: version },
  };
  return `${JSON.stringify(json, null, 2)}\n`;
}

/**
 * Scaffolds an environment package in `dir` (default: the name without its scope): package.json
 * with a `rubricate` field and rubricate as a peer dependency, env.yaml, rubric.yaml, hooks.ts
 * importing from "rubricate", tasks.jsonl, scripted tests (tests.yaml) and a README.
 * Refuses a folder that already has files; returns the files written.
 * @example initEnvPackage("@acme/times-env") // ["times-env/package.json", …]
 */
export function initEnvPackage(requested: string, options: { dir?: string; description?: string } = {}): string[] {
  const name = packageNameOf(requested);
  const base = name.replace(/^@[^/]+\//, "");
  const dir = resolve(options.dir ?? base);
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new RubricateError("BAD_INPUT", `${dir} already has files; pick an empty folder with --dir`);
  const id = base.replace(/-env$/, "") || base;
  const files: Record<string, string> = {
    ".gitignore": GITIGNORE,
    "package.json": scaffoldPackageJson({ name, description: options.description ?? `A rubricate environment: ${id}`, files: ["env.yaml", "rubric.yaml", "hooks.ts", "tasks.jsonl", "tests.yaml", "README.md"] }),
    "env.yaml": ENV_YAML.replaceAll("__ID__", id),
    "rubric.yaml": RUBRIC_YAML.replaceAll("__ID__", id),
    "hooks.ts": HOOKS_TS,
    "tasks.jsonl": TASKS.map((t) => JSON.stringify(t)).join("\n") + "\n",
    "tests.yaml": TESTS_YAML,
    "README.md": README.replaceAll("__NAME__", name).replaceAll("__EVALS__", defaultEvalsExample(name)),
  };
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for (const [file, text] of Object.entries(files)) {
    writeFileSync(join(dir, file), text);
    written.push(join(dir, file));
  }
  return written;
}

/**
 * The npm package name for what the user typed: a valid name as it is, else one derived from it
 * ("Times Env" → "times-env", "@Acme/My Env" → "@acme/my-env"): lower case, runs of characters
 * npm refuses turned into one hyphen.
 * @example packageNameOf("Times Env") // "times-env"
 */
export function packageNameOf(requested: string): string {
  const trimmed = requested.trim();
  if (trimmed.indexOf("@", 1) > 0) throw new RubricateError("BAD_INPUT", `"${requested}" is not a package name (write it without a version, e.g. @acme/times-env)`);
  const scoped = /^@([^/]+)\/(.+)$/.exec(trimmed);
  const clean = (part: string) => part.toLowerCase().replace(/[^a-z0-9._~-]+/g, "-").replace(/^[-._~]+|[-._~]+$/g, "").replace(/-{2,}/g, "-");
  const name = scoped ? `@${clean(scoped[1])}/${clean(scoped[2])}` : clean(trimmed);
  let parsed: Npa.Result | undefined;
  try {
    parsed = npmPackageArg()(name);
  } catch (e) {
    throw new RubricateError("BAD_INPUT", `"${requested}" gives no valid npm package name (${(e as Error).message.split("\n")[0]}); try e.g. @acme/times-env`);
  }
  if (!/[a-z0-9]/.test(name) || parsed.name !== name || !parsed.registry) throw new RubricateError("BAD_INPUT", `"${requested}" is not a package name (write it without a version, e.g. @acme/times-env)`);
  return name;
}

/** Where the README says an eval's rollouts land: eval's default output for this package and the example model. */
const defaultEvalsExample = (name: string) => defaultEvalOut(`${name}@0.1.0`, ["openai:gpt-4.1-mini"]).split(sep).join("/");

export const GITIGNORE = `# rubricate's installs, eval rollouts and caches: reproducible from the registry and the models, not source
.rubricate/
node_modules/
*.tgz
`;

const TASKS = [
  { id: "1", inputs: { a: 12, b: 7 }, answer: 84 },
  { id: "2", inputs: { a: 23, b: 19 }, answer: 437 },
  { id: "3", inputs: { a: 305, b: 41 }, answer: 12505 },
];

const ENV_YAML = `# An environment: tasks, a harness (prompts, tools, limits) and a rubric.
#   npx rubricate eval . --model openai:gpt-4.1-mini --rollouts 4 --report report.html
id: __ID__
description: Multiply two numbers with a calculator tool and state the product.
dataset: tasks.jsonl          # one task a line: inputs, and the reference answer the rubric reads
hooks: ./hooks.ts             # tools, setup/finalize and custom checks (TypeScript, no build step)
rubric: rubric.yaml
harness:
  system: You are a careful assistant. Use the multiply tool, then give the product in one sentence.
  prompt: "What is {{a}} times {{b}}?"
  max_turns: 4
  tools:
    - name: multiply
      description: Multiplies two numbers.
      parameters:
        type: object
        properties: { a: { type: number }, b: { type: number } }
        required: [a, b]
policy:
  temperature: 0
  max_tokens: 200
`;

const RUBRIC_YAML = `# The rubric: yes/no criteria, each a code check or one judge question.
id: __ID__
inputs: [response, answer]
judge: openai-small           # a packaged judge; --judge overrides it
scoring: { method: points, pass_threshold: 0.75 }
criteria:
  - id: correct
    check: { custom: product-matches }
    points: 3
    required: true
  - id: used-tool
    check: { custom: used-multiply }
    points: 1
  - id: one-sentence
    question: Does the response state the product in a single sentence, with no other claims?
    points: 1
    examples:
      - response: 12 times 7 is 84.
        answer: true
        reason: One sentence stating the product.
      - response: 12 times 7 is 84. Multiplication is repeated addition, and 84 is also 7 dozen.
        answer: false
        reason: A near miss - the product is right but other claims follow.
`;

const HOOKS_TS = `/**
 * The TypeScript side of the environment: tool implementations, per-rollout state and custom
 * checks. Types come from rubricate, a peer dependency: the rubricate that runs the environment.
 */
import type { CheckFunction, EnvHooks, FinalizeContext } from "rubricate";

interface State {
  calls: number;
}

/** The last number in a text (commas allowed), or undefined. */
export function lastNumber(text: string): number | undefined {
  const all = text.replace(/(\\d),(\\d)/g, "$1$2").match(/-?\\d+(\\.\\d+)?/g);
  return all ? Number(all[all.length - 1]) : undefined;
}

/** Custom checks the rubric names (check: { custom: name }); this environment's rollouts score with them. */
export const checks: Record<string, CheckFunction> = {
  "product-matches": (text, { sample }) => {
    const got = lastNumber(text);
    return { pass: got === Number(sample.answer), reasoning: \`answered \${got ?? "no number"}, expected \${String(sample.answer)}\` };
  },
  "used-multiply": (_text, { sample }) => Number(sample.multiply_calls) > 0,
};

const hooks: EnvHooks<State> = {
  setup: () => ({ calls: 0 }),
  tools: {
    multiply: ({ a, b }: { a: number; b: number }, { state }) => {
      state.calls += 1;
      return a * b;
    },
  },
  finalize: ({ state }: FinalizeContext<State>) => ({ multiply_calls: state.calls }),
  checks,
};

export default hooks;
`;

const TESTS_YAML = `# Scripted tests: \`rubricate env check\` plays each through the real rollout loop with these
# replies as the policy and these answers as the judge (no model is called), then checks the score.
- name: uses the tool and answers right
  task: "1"
  replies:
    - { tool: multiply, args: { a: 12, b: 7 } }
    - 12 times 7 is 84.
  judge: { one-sentence: true }
  expect: { passed: true, reward: 1 }

- name: a wrong product fails even when well phrased
  task: "2"
  replies: ["23 times 19 is 427."]
  judge: { one-sentence: true }
  expect: { passed: false, criteria: { correct: unmet, used-tool: unmet } }
`;

const README = `# __NAME__

A [rubricate](https://www.npmjs.com/package/rubricate) environment: tasks, a harness and a
rubric. Install rubricate, then evaluate any model on it:

\`\`\`sh
npx rubricate eval __NAME__ --model openai:gpt-4.1-mini --rollouts 4 --report report.html
npx rubricate eval __NAME__@0.1.0 --model openai:gpt-4.1-mini -m anthropic:claude-haiku-4-5
\`\`\`

rubricate installs the package into \`.rubricate/envs\` (never into your project) and stamps its
name, version and integrity hash into every rollout and report. From a checkout of this folder:
\`npx rubricate eval . --model …\`.

## Train on it

The rollouts of an eval are training data: \`npx rubricate distill __EVALS__
--min-reward 0.8 --format openai -o sft.jsonl\`, or with fresh rollouts from a teacher model:
\`npx rubricate distill --env __NAME__ --model openai:gpt-4.1 --rollouts 8
--format dpo -o pairs.jsonl\`. The rubric is also an online reward: \`npx rubricate serve\`
(see rubricate's README, "Rewards for RL trainers").

## Develop

- \`env.yaml\`: harness and tools; \`rubric.yaml\`: the criteria; \`hooks.ts\`: tool code and checks;
  \`tasks.jsonl\`: one task a line.
- \`tests.yaml\`: scripted rollouts with the score each must get.
- \`npm test\` (\`rubricate env check .\`) validates the environment, lints the rubric, checks what
  \`npm pack\` would ship and runs the scripted tests: run it before publishing.
- \`npx rubricate env push --bump patch\` publishes a new version to the registry .npmrc names
  for the scope (it refuses a version whose files did not change).
`;
