import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { RubricateError } from "../errors.js";
import { oneLine } from "./spec.js";

/** What one npm command printed and how it ended. */
export interface NpmResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `npm <args>` in `cwd` and collects its output; never throws for a non-zero exit. */
export function runNpm(args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; signal?: AbortSignal }): Promise<NpmResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.platform === "win32" ? "npm.cmd" : "npm", args, {
      cwd: options.cwd,
      env: { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
      signal: options.signal,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", (e: NodeJS.ErrnoException) => {
      if (e.name === "AbortError") fail(new RubricateError("ABORTED", "npm was stopped"));
      else fail(new RubricateError("BAD_INPUT", `cannot run npm (${e.code ?? e.message}): environments from a registry or git are installed with npm, which must be on the PATH`));
    });
    child.on("close", (code) => done({ code: code ?? 1, stdout, stderr }));
  });
}

/** npm's own error of a `--json` run: `{ error: { code, summary, detail } }` on stdout, else `npm error code X` lines. */
export function npmError(result: NpmResult): { code: string; summary: string } {
  const at = result.stdout.lastIndexOf('{\n  "error"');
  if (at >= 0) {
    try {
      const e = (JSON.parse(result.stdout.slice(at)) as { error: { code?: string; summary?: string; detail?: string } }).error;
      return { code: e.code ?? "", summary: oneLine(e.summary || e.detail || "") };
    } catch {
      // fall through to the text form
    }
  }
  const code = /npm error code (\S+)/.exec(result.stderr)?.[1] ?? "";
  const lines = result.stderr.split("\n").filter((l) => l.startsWith("npm error ") && !/npm error (code|errno|syscall|A complete log|\s+at )/.test(l));
  return { code, summary: oneLine(lines.map((l) => l.slice("npm error ".length)).join(" ")).slice(0, 500) };
}

const NETWORK = new Set(["ECONNREFUSED", "ENOTFOUND", "ETIMEDOUT", "EAI_AGAIN", "ECONNRESET", "EHOSTUNREACH", "ENETUNREACH", "ERR_SOCKET_TIMEOUT"]);

/**
 * One line saying why npm could not install `spec` and what to do about it: an unknown package,
 * a version that does not exist, a registry that wants a token, a registry that is down.
 */
export function installFailure(spec: string, result: NpmResult): RubricateError {
  const { code, summary } = npmError(result);
  const why = summary || `npm exited with code ${result.code}`;
  if (code === "E404") return new RubricateError("PACKAGE_NOT_FOUND", `${spec}: no such package in the registry (${why}); check the name, and the registry or scope in .npmrc`);
  if (code === "ETARGET") return new RubricateError("PACKAGE_NOT_FOUND", `${spec}: no such version (${why}); \`npm view <name> versions\` lists the published ones`);
  if (code === "E401" || code === "E403" || code === "ENEEDAUTH") {
    return new RubricateError("REGISTRY_AUTH", `${spec}: the registry refused access (${code}: ${why}); a private package needs a token in .npmrc: //<registry host>/:_authToken=\${NPM_TOKEN}, with NPM_TOKEN set`);
  }
  if (NETWORK.has(code) || /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET/.test(why)) {
    return new RubricateError("REGISTRY_DOWN", `${spec}: cannot reach the registry (${why}); is it running, and is the registry in .npmrc right?`, { retryable: true });
  }
  if (code === "128" || /git/.test(code) || /\bgit\b/.test(why)) return new RubricateError("PACKAGE_NOT_FOUND", `${spec}: git could not fetch it (${why}); check the URL and your git access`);
  return new RubricateError("PACKAGE_INVALID", `${spec}: npm install failed (${code || result.code}: ${why})`);
}

/**
 * The `.npmrc` of the project npm would use from `cwd` (registry, scopes, `${NPM_TOKEN}` lines):
 * installs happen in a folder of their own, where npm would not see it otherwise.
 */
export function projectNpmrc(cwd: string): string | undefined {
  let dir = cwd;
  for (;;) {
    if (existsSync(join(dir, "package.json")) || existsSync(join(dir, "node_modules"))) {
      const rc = join(dir, ".npmrc");
      return existsSync(rc) ? rc : undefined;
    }
    const up = dirname(dir);
    if (up === dir) return existsSync(join(cwd, ".npmrc")) ? join(cwd, ".npmrc") : undefined;
    dir = up;
  }
}
