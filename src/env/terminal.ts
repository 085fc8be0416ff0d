import { ToolFailure } from "./tools.js";
import type { ExecResult, Sandbox } from "../sandbox/types.js";
import type { PythonRepl, ReplResult } from "../sandbox/repl/index.js";
import type { ToolDecl } from "./schema.js";
import type { ToolImpl } from "./types.js";

/** The built-in tools an environment with a sandbox can offer its policy. */
export const TERMINAL_TOOL_NAMES = ["bash", "read_file", "write_file", "submit", "python"] as const;
/** The built-in terminal tools of a sandboxed environment. */
export type TerminalToolName = (typeof TERMINAL_TOOL_NAMES)[number];

/** Their declarations, as the policy sees them. */
export const TERMINAL_TOOLS: Record<TerminalToolName, ToolDecl> = {
  bash: {
    name: "bash",
    description: "Run a shell command in your sandbox (cwd /work, no network). Returns the exit code and the output (long output is cut).",
    parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"], additionalProperties: false },
  },
  read_file: {
    name: "read_file",
    description: "Read a text file of your sandbox (relative paths are under /work).",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false },
  },
  write_file: {
    name: "write_file",
    description: "Write a text file in your sandbox (folders are created).",
    parameters: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } }, required: ["path", "content"], additionalProperties: false },
  },
  submit: {
    name: "submit",
    description: "Submit your final answer; this ends the task.",
    parameters: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"], additionalProperties: false },
  },
  python: {
    name: "python",
    description:
      "Run Python code in a persistent REPL (variables survive between calls). The variable `context` holds the document; `llm_query(prompt)` asks a sub-model and returns its text; `rlm_query(prompt, text)` asks a sub-model that gets a REPL of its own over `text` (where the environment allows that depth). Print what you need to see.",
    parameters: { type: "object", properties: { code: { type: "string" } }, required: ["code"], additionalProperties: false },
  },
};

/** What the terminal tools share with the rollout: the submitted answer ends it. */
export interface TerminalState {
  submitted?: string;
}

/** A command's result as the model reads it. */
export function describeExec(r: ExecResult, timeoutMs: number): string {
  const parts = [`exit code: ${r.exitCode ?? "none"}`];
  if (r.limit === "timeout") parts.push(`killed: the command ran longer than ${timeoutMs} ms`);
  else if (r.limit === "cpu") parts.push("killed: CPU time limit");
  else if (r.limit === "file_size") parts.push("killed: file size limit");
  else if (r.limit === "memory") parts.push("killed: memory limit");
  else if (r.signal) parts.push(`killed by ${r.signal}`);
  if (r.stdout) parts.push(`stdout:\n${r.stdout}`);
  if (r.stderr) parts.push(`stderr:\n${r.stderr}`);
  if (r.truncated) parts.push(`[output cut at ${Math.round(r.stdout.length / 1024)} KiB per stream]`);
  return parts.join("\n");
}

/** Implementations of the named terminal tools over one rollout's sandbox. */
export function terminalToolImpls(names: readonly TerminalToolName[], sandbox: Sandbox, state: TerminalState, repl?: () => Promise<PythonRepl>, cellTimeoutMs?: number): Record<string, ToolImpl> {
  const all: Record<TerminalToolName, ToolImpl> = {
    bash: async ({ command }: { command: string }, ctx) => {
      const r = await sandbox.exec(command, { signal: ctx.signal });
      const text = describeExec(r, sandbox.limits.commandTimeoutMs);
      if (r.limit === "timeout") throw new ToolFailure(text, "timeout"); // the record says so, not only the text
      return text;
    },
    read_file: async ({ path }: { path: string }) => (await sandbox.readFile(path, { maxBytes: sandbox.limits.outputBytes })).toString("utf8"),
    write_file: async ({ path, content }: { path: string; content: string }) => {
      await sandbox.writeFile(path, content);
      return `wrote ${Buffer.byteLength(content)} bytes to ${path}`;
    },
    submit: ({ answer }: { answer: string }) => {
      state.submitted = answer;
      return "submitted";
    },
    python: async ({ code }: { code: string }, ctx) => {
      if (!repl) throw new Error("this environment has no Python REPL");
      // The rollout's signal ends a cell as it ends a bash command: a looping cell would hold the rollout past its time limit.
      return describeCell(await (await repl()).run(code, { ...(cellTimeoutMs ? { timeoutMs: cellTimeoutMs } : {}), signal: ctx.signal }), sandbox.limits.outputBytes);
    },
  };
  return Object.fromEntries(names.map((n) => [n, all[n]]));
}

/** A REPL cell's result as the model reads it (output cut at `max` characters per stream). */
export function describeCell(r: ReplResult, max: number): string {
  const out = [r.stdout && `stdout:\n${clipText(r.stdout, max)}`, r.stderr && `stderr:\n${clipText(r.stderr, max)}`, r.error && `error: ${r.error}`].filter(Boolean);
  return out.join("\n") || "(no output)";
}

function clipText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n[… ${text.length - max} more characters cut]`;
}
