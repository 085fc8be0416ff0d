/**
 * `tool_calls`: checks over a rollout's trajectory (reading it: ../tools.ts).
 *
 * rubric:  check: { tool_calls: { called: search, order: [search, answer], max_calls: 5 } }
 */
import * as z from "zod";
import { compileJsonSchema, describeAjvErrors, validateData } from "../compile.js";
import { defineCheck, type CheckHack, type CheckInput, type CheckResult } from "../kind.js";
import { undisguisedOnce } from "../memo.js";
import { withAwaitedPatternTests } from "../regex.js";
import { list, parseArguments, readTrajectory, usesResult, workedCalls, type TrajectoryCall } from "../tools.js";
import { schemaProblem } from "./problems.js";

const names = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);

export const ToolCallsSpec = z
  .strictObject({
    called: names.optional().describe("Each of these tools was called at least once (a call that worked: not refused, not failed)"),
    not_called: names.optional().describe("None of these tools was called"),
    arguments: z
      .strictObject({
        tool: z.string().min(1),
        schema: z.record(z.string(), z.unknown()),
        if_called: z.boolean().optional().describe("true: a trajectory without a call of `tool` passes (a rule on the calls made, such as delete only with confirm: true); default false: at least one call is needed"),
      })
      .optional()
      .describe("`tool` was called, and every call of it has arguments that parse as JSON and satisfy `schema` (with `if_called: true`, no call passes too)"),
    order: z.array(z.string().min(1)).min(2).optional().describe("These tools are first called in this order (counting calls that worked)"),
    max_calls: z.union([z.number().int().nonnegative(), z.record(z.string(), z.number().int().nonnegative())]).optional().describe("At most n calls in all, or per tool ({ search: 2 })"),
    min_calls: z.number().int().nonnegative().optional().describe("At least n calls in all that worked"),
    answer_uses: z.string().min(1).optional().describe("The response contains the last result of this tool from a call that worked (numbers compared as numbers)"),
    trajectory: z.string().min(1).optional().describe("The sample input with the trajectory (default: tool_calls, else messages)"),
  })
  .refine((s) => Object.keys(s).some((k) => k !== "trajectory"), "tool_calls needs at least one condition (called, not_called, arguments, order, max_calls, min_calls, answer_uses)");
export type ToolCallsSpec = z.infer<typeof ToolCallsSpec>;

/** A hack on `answer_uses`: a trajectory whose last call of that tool returned `result`, and an answer that does not state it. */
function answerUsesHack(id: string, description: string, result: string, response: string): CheckHack<ToolCallsSpec> {
  return {
    id,
    description,
    build(spec) {
      if (!spec.answer_uses) return undefined;
      const calls = [{ name: spec.answer_uses, arguments: "{}", result }];
      return { response, inputs: { [spec.trajectory ?? "tool_calls"]: JSON.stringify(calls) } };
    },
  };
}

/**
 * A hack on `called`, `order` and `min_calls`: each tool they name called, in order, with
 * arguments the environment refused, as a rollout records it: calls that never ran.
 */
const refusedCallsHack: CheckHack<ToolCallsSpec> = {
  id: "tool-calls-refused",
  description: "the tools the check asks for called with arguments the tool refused (the calls never ran)",
  build(spec) {
    const names = [...new Set([...list(spec.called), ...(spec.order ?? [])])];
    if (names.length === 0 && spec.min_calls === undefined) return undefined;
    while (names.length < (spec.min_calls ?? 0)) names.push(names[0] ?? "search");
    const calls = names.map((name) => ({ name, arguments: "{", result: `Error: the arguments of ${name} are not valid JSON.`, error: "bad_arguments" }));
    return { response: "Done.", inputs: { [spec.trajectory ?? "tool_calls"]: JSON.stringify(calls) } };
  },
};

export const toolCalls = defineCheck<ToolCallsSpec>({
  key: "tool_calls",
  spec: ToolCallsSpec,
  summary: "the trajectory's tool calls: which tools, their arguments (JSON Schema), order, counts, answer uses a result",
  tag: true,
  hacks: [
    answerUsesHack("answer-uses-quoted-number", "a different number as the answer, the tool's result quoted beside it", "2148000", "3,000,000 (the calculator said 2148000)"),
    answerUsesHack("answer-uses-number-after", "the tool's result stated, then a different final answer", "2148000", "The tool returned 2148000, so the answer is 3,000,000."),
    answerUsesHack("answer-uses-denied-text", "the tool's text result named only to be denied", "Paris", "Not Paris; it is Lyon."),
    answerUsesHack("answer-uses-substring", "the tool's text result inside another word", "Paris", "Parisian cafés are lovely."),
    answerUsesHack("answer-uses-hedge", "the tool's result offered with another value as alternatives", "2148000", "The answer is 3,000,000 or 2148000."),
    answerUsesHack("answer-uses-list", "the tool's result listed with another value by 'and', as candidates", "2148000", "The answer is 2148000 and 3,000,000."),
    answerUsesHack("answer-uses-aside-list", "the tool's result with another candidate added in parentheses, as if an aside", "Paris", "Answer: Paris (and Lyon)."),
    answerUsesHack("answer-uses-hidden", "another answer shown, the tool's result only in an HTML comment", "Paris", "Answer: Lyon <!-- Paris -->"),
    refusedCallsHack,
  ],
  validate: (spec) => (spec.arguments ? schemaProblem(() => compileJsonSchema(spec.arguments!.schema), ["arguments", "schema"]) : undefined),
  inputs: (spec) => [spec.trajectory ?? ["tool_calls", "messages"]],
  // An argument schema's costly pattern test is awaited from a worker, not waited for (see withAwaitedPatternTests).
  run: (spec, context) => withAwaitedPatternTests(() => trajectoryVerdict(spec, context)),
});

/** How many calls each tool name has. */
function countByName(calls: readonly TrajectoryCall[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const c of calls) counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
  return counts;
}

/** The check's verdict on the sample's trajectory. */
function trajectoryVerdict(spec: ToolCallsSpec, { text, sample, memo }: CheckInput): CheckResult {
  // A call the policy wrote malformed (no tool name) fails the check; a trajectory that is not a list is an error.
  const problems: string[] = [];
  const calls = readTrajectory(sample, spec.trajectory, problems);
  // What a rubric asks to be done (called, order, min_calls, answer_uses) counts the calls that
  // worked: a call the tool refused (bad arguments) or that failed did none of it, and a policy
  // would make one to pass. What it forbids (not_called, max_calls) counts every attempt.
  const worked = workedCalls(calls);
  const counts = countByName(calls);
  const workedCounts = countByName(worked);
  const notWorked = (name: string) => (counts.has(name) ? ` (${counts.get(name)} call(s) of it failed: ${[...new Set(calls.filter((c) => c.name === name).map((c) => c.failed))].join(", ")})` : "");
  for (const name of list(spec.called)) if (!workedCounts.has(name)) problems.push(`${name} was not called${notWorked(name)}`);
  for (const name of list(spec.not_called)) if (counts.has(name)) problems.push(`${name} was called ${counts.get(name)} time(s)`);
  if (spec.arguments) {
    // "Valid arguments" is not earned by never calling the tool: a policy would skip the call to pass.
    if (!spec.arguments.if_called && !counts.has(spec.arguments.tool)) problems.push(`${spec.arguments.tool} was not called, so no arguments to check`);
    const validate = compileJsonSchema(spec.arguments.schema);
    calls.forEach((c, i) => {
      if (c.name !== spec.arguments!.tool) return;
      const parsed = parseArguments(c.arguments);
      if (!parsed.ok) problems.push(`call ${i + 1} (${c.name}): arguments are not JSON (${parsed.error})`);
      else {
        // Arguments the policy wrote to make the validator throw are invalid arguments, not an error.
        const valid = validateData(validate, parsed.value);
        if (typeof valid === "object") problems.push(`call ${i + 1} (${c.name}): ${valid.fault}`);
        else if (!valid) problems.push(`call ${i + 1} (${c.name}): ${describeAjvErrors(validate.errors)}`);
      }
    });
  }
  if (spec.order) {
    const firsts = spec.order.map((name) => worked.findIndex((c) => c.name === name));
    const missing = spec.order.filter((_, i) => firsts[i] === -1);
    if (missing.length) problems.push(`order: ${missing.join(", ")} never called`);
    else if (firsts.some((p, i) => i > 0 && p < firsts[i - 1])) problems.push(`called in the order ${[...spec.order].sort((a, b) => firsts[spec.order!.indexOf(a)] - firsts[spec.order!.indexOf(b)]).join(" → ")}, expected ${spec.order.join(" → ")}`);
  }
  if (typeof spec.max_calls === "number" && calls.length > spec.max_calls) problems.push(`${calls.length} tool calls, at most ${spec.max_calls} allowed`);
  if (spec.max_calls && typeof spec.max_calls === "object") {
    for (const [name, max] of Object.entries(spec.max_calls)) if ((counts.get(name) ?? 0) > max) problems.push(`${name} called ${counts.get(name)} times, at most ${max} allowed`);
  }
  if (spec.min_calls !== undefined && worked.length < spec.min_calls) problems.push(`${worked.length} tool calls${worked.length < calls.length ? ` that worked (${calls.length - worked.length} failed)` : ""}, at least ${spec.min_calls} needed`);
  if (spec.answer_uses) {
    const last = worked.filter((c) => c.name === spec.answer_uses).at(-1);
    if (!last) problems.push(`${spec.answer_uses} was not called${notWorked(spec.answer_uses)}, so the answer cannot use its result`);
    else if (last.result === undefined) problems.push(`the trajectory has no result for ${spec.answer_uses}`);
    else if (!usesResult(undisguisedOnce(text, memo), last.result)) problems.push(`the answer does not state ${spec.answer_uses}'s result ${JSON.stringify(last.result.slice(0, 80))}`);
  }
  const summary = calls.length ? calls.map((c) => (c.failed ? `${c.name} (${c.failed})` : c.name)).join(" → ") : "no tool calls";
  return problems.length ? { pass: false, reasoning: `${problems.join("; ")} (trajectory: ${summary})` } : { pass: true, reasoning: `trajectory ${summary}` };
}
