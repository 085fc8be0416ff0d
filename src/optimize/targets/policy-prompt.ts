import pLimit from "p-limit";
import type { Engine } from "../../engine/engine.js";
import { rollout, renderTranscript } from "../../env/rollout.js";
import type { Policy } from "../../env/policy.js";
import type { Environment, RolloutRecord, Task } from "../../env/types.js";
import { RubricateError, type ErrorCode } from "../../errors.js";
import type { Judge } from "../../judge/types.js";
import type { ErrorPolicy } from "../../score/aggregate.js";
import { renderTemplate, templateVariables } from "../../text/template.js";
import { buildReflectionPrompt } from "../reflection.js";
import type { Candidate, Evaluate, ReflectiveRecord } from "../types.js";
import type { ReflectionPrompt } from "./reflect.js";
import { splitTrainVal } from "./split.js";

/** The component a policy-prompt candidate has: the environment's system prompt. */
export const SYSTEM_COMPONENT = "system";

/** Options of `policyPromptTarget`. */
export interface PolicyPromptOptions {
  env: Environment;
  policy: Policy;
  /** Policy and judge calls go through it (cache, schedulers): a revisited prompt costs nothing. */
  engine: Engine;
  /** Answers the rubric's LLM questions. */
  judge?: Judge;
  /** The tasks to use (default: all the environment's), split by `valFraction` unless `trainset`/`valset` are given. */
  tasks?: Task[];
  trainset?: Task[];
  valset?: Task[];
  /** Share of the tasks kept for validation (default 0.5). */
  valFraction?: number;
  /** Seed of the train/validation shuffle (default 0). */
  splitSeed?: number;
  /** Rollouts per task, their rewards averaged (default 1). */
  rollouts?: number;
  /** Rollouts in flight at once (default 8); the engine's schedulers limit the calls themselves. */
  concurrency?: number;
  /** What a criterion error does to the reward (default "null": the evaluation fails). */
  errors?: ErrorPolicy;
}

/** Everything `optimize` needs to evolve an environment's system prompt, plus the prompt for a reflector. */
export interface PolicyPromptTarget {
  seed: Candidate;
  evaluate: Evaluate<Task>;
  trainset: Task[];
  valset: Task[];
  instanceText: (task: Task) => string;
  /** The reflection prompt, with each task shown as its first user message. */
  reflectionPrompt: ReflectionPrompt<Task>;
  /** Refuses a proposed prompt using a {{variable}} some task does not provide (its rollouts would fail). */
  validateProposal: (text: string) => string | undefined;
  /** The environment with a candidate's system prompt in its harness. */
  withCandidate(candidate: Candidate): Environment;
}

const isSingleTurn = (r: RolloutRecord) => r.turns <= 1 && r.toolCalls.length === 0;

/**
 * Target (a): an environment's policy system prompt, scored by the environment's rubric. Each
 * instance is a task; its score is the mean reward of its rollouts with the candidate prompt,
 * its feedback the rubric's (failed criteria with the judge's reasons), its trace the answer
 * (or the transcript of a multi-turn rollout). A rollout without a reward (judge or policy
 * error) fails the evaluation instead of scoring 0, so GEPA never learns from an outage.
 * @example
 * const target = policyPromptTarget({ env, policy, engine, judge });
 * const reflector = createReflector("judges/reflector.yaml", { engine, prompt: target.reflectionPrompt });
 * const result = await optimize({ ...target, reflect: reflector.reflect, budget: 300 });
 */
export function policyPromptTarget(options: PolicyPromptOptions): PolicyPromptTarget {
  const { env, policy, engine, judge } = options;
  const rollouts = options.rollouts ?? 1;
  if (!Number.isInteger(rollouts) || rollouts < 1) throw new RubricateError("BAD_INPUT", `rollouts must be a positive integer, got ${rollouts}`);
  let trainset: Task[];
  let valset: Task[];
  if (options.trainset || options.valset) {
    if (!options.trainset || !options.valset) throw new RubricateError("BAD_INPUT", "give both trainset and valset, or neither");
    [trainset, valset] = [options.trainset, options.valset];
  } else {
    ({ trainset, valset } = splitTrainVal(options.tasks ?? env.tasks, { valFraction: options.valFraction, seed: options.splitSeed }));
  }
  const limit = pLimit(options.concurrency ?? 8);
  const withCandidate = (candidate: Candidate): Environment => {
    const system = candidate[SYSTEM_COMPONENT];
    return { ...env, harness: { ...env.harness, system: system === undefined || system.trim() === "" ? undefined : system } };
  };
  const instanceText = (task: Task): string => {
    try {
      return renderTemplate(env.harness.prompt, task.inputs);
    } catch {
      return JSON.stringify(task.inputs);
    }
  };

  const evaluate: Evaluate<Task> = async (candidate, tasks, { captureTraces, signal }) => {
    const e = withCandidate(candidate);
    const records = await Promise.all(
      tasks.map((task) => Promise.all(Array.from({ length: rollouts }, (_, index) => limit(() => rollout(e, policy, task, { engine, judge, index, signal, errors: options.errors }))))),
    );
    for (const rec of records.flat()) {
      if (rec.reward === null) {
        const first = rec.errors[0] ?? { code: "INTERNAL", message: rec.feedback };
        throw new RubricateError(first.code as ErrorCode, `task ${rec.task}, rollout ${rec.rollout} has no reward (${first.criterion ?? "*"}: ${first.message}); GEPA stops rather than learn from a judge or policy failure`);
      }
    }
    const scores = records.map((rs) => rs.reduce((a, r) => a + (r.reward as number), 0) / rs.length);
    const feedback = records.map((rs) => (rs.length === 1 ? rs[0].feedback : rs.map((r, i) => `rollout ${i + 1}: ${r.feedback}`).join("\n")));
    const trace = (r: RolloutRecord) => (isSingleTurn(r) ? r.response : renderTranscript(r.messages));
    const traces = captureTraces ? records.map((rs) => (rs.length === 1 ? trace(rs[0]) : rs.map((r, i) => `--- rollout ${i + 1}\n${trace(r)}`).join("\n\n"))) : undefined;
    return { scores, feedback, ...(traces ? { traces } : {}) };
  };

  const reflectionPrompt: ReflectionPrompt<Task> = ({ candidate, component, reflectiveDataset }) => {
    const shown: ReflectiveRecord[] = reflectiveDataset.map((r) => ({ ...r, input: instanceText(r.input) }));
    return buildReflectionPrompt(candidate[component], shown);
  };

  const tasksUsed = [...trainset, ...valset];
  const validateProposal = (text: string): string | undefined => {
    const missing = templateVariables(text).filter((v) => tasksUsed.some((t) => t.inputs[v.split(".")[0]] === undefined));
    return missing.length > 0 ? `the prompt uses ${missing.map((v) => `{{${v}}}`).join(", ")}, which some tasks do not provide` : undefined;
  };

  return { seed: { [SYSTEM_COMPONENT]: env.harness.system ?? "" }, evaluate, trainset, valset, instanceText, reflectionPrompt, validateProposal, withCandidate };
}
