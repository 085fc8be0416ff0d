import { compileJsonSchema, describeAjvErrors, validateDataAwaited } from "../checks/compile.js";
import type { VerdictBudgets } from "../checks/regex.js";
import type { ToolCall } from "../providers/types.js";
import type { ToolDecl } from "./schema.js";
import type { HookContext, ToolCallRecord, ToolImpl } from "./types.js";

/**
 * Thrown by a tool whose result the model sees as is while the call's record says it failed
 * (`error`): a sandbox command killed at its time limit is a "timeout", not a success.
 */
export class ToolFailure extends Error {
  constructor(
    readonly result: string,
    readonly kind: NonNullable<ToolCallRecord["error"]>,
  ) {
    super(result);
    this.name = "ToolFailure";
  }
}

/** Longest tool result shown to the model, in characters; the rest is cut with a note. */
export const MAX_TOOL_RESULT_CHARS = 20_000;

/**
 * Runs one tool call the model made. Never throws: bad JSON arguments, arguments that break the
 * tool's schema, an unknown tool, a thrown error and a timeout all become a tool result that
 * tells the model what went wrong, so it can correct itself (and the rubric can see it).
 * `regexBudgets`: the rollout's worker CPU for costly `pattern` tests of its arguments, shared by
 * all its calls (`verdictBudgets()`); without it, each call gets a verdict's.
 * @example const rec = await executeToolCall(call, decls, impls, ctx, 5000); rec.result
 */
export async function executeToolCall(call: ToolCall, decls: ToolDecl[], impls: Record<string, ToolImpl>, ctx: HookContext, timeoutMs: number, regexBudgets?: VerdictBudgets): Promise<ToolCallRecord> {
  const started = Date.now();
  const done = (result: string, error?: ToolCallRecord["error"]): ToolCallRecord => ({ ...call, result: clip(result), ...(error ? { error } : {}), ms: Date.now() - started });
  const decl = decls.find((d) => d.name === call.name);
  const impl = impls[call.name];
  if (!decl || typeof impl !== "function") {
    return done(`Error: unknown tool "${call.name}". Available tools: ${decls.map((d) => d.name).join(", ") || "none"}.`, "unknown_tool");
  }
  let args: unknown;
  try {
    args = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
  } catch (e) {
    return done(`Error: the arguments of ${call.name} are not valid JSON (${(e as Error).message}). Send a JSON object matching the tool's parameters.`, "bad_arguments");
  }
  // Arguments built to make a parameter's pattern backtrack, or the validator's stack overflow, are
  // the policy's invalid arguments (a fault); a costly pattern test is awaited, so other rollouts go on.
  const { valid, errors } = await validateDataAwaited(compileJsonSchema(decl.parameters), args, regexBudgets);
  if (valid !== true) {
    // The first ten problems and a count of the rest: a policy picks how many items of its arguments fail.
    const problems = typeof valid === "object" ? valid.fault : describeAjvErrors(errors, "arguments");
    return done(`Error: invalid arguments for ${call.name}: ${problems}.`, "bad_arguments");
  }
  const controller = new AbortController();
  const onOuterAbort = () => controller.abort(ctx.signal.reason);
  ctx.signal.addEventListener("abort", onOuterAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), timeoutMs)));
  try {
    const outcome = await Promise.race([Promise.resolve().then(() => impl(args, { ...ctx, signal: controller.signal })), timeout]);
    if (outcome === "timeout") {
      controller.abort(new Error("tool timed out"));
      return done(`Error: ${call.name} timed out after ${timeoutMs} ms.`, "timeout");
    }
    return done(typeof outcome === "string" ? outcome : outcome === undefined ? "" : JSON.stringify(outcome));
  } catch (e) {
    if (e instanceof ToolFailure) return done(e.result, e.kind);
    return done(`Error: ${call.name} failed: ${e instanceof Error ? e.message : String(e)}`, "tool_error");
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener("abort", onOuterAbort);
  }
}

function clip(text: string): string {
  return text.length <= MAX_TOOL_RESULT_CHARS ? text : `${text.slice(0, MAX_TOOL_RESULT_CHARS)}\n[… ${text.length - MAX_TOOL_RESULT_CHARS} more characters cut]`;
}
