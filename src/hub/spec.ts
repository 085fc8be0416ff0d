import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type Npa from "npm-package-arg";
import { npmPackageArg } from "./lazy.js";
import { RubricateError } from "../errors.js";

/**
 * What `rubricate eval <spec>` names: a file or folder on disk, a package of a registry
 * (`@acme/wordle-env`, `@acme/wordle-env@1.1.0`, `wordle-env@^1`), or anything else npm can
 * install (a git URL, `github:user/repo`, a tarball file or URL).
 */
export type EnvSpec =
  | { kind: "path"; path: string }
  | { kind: "registry"; raw: string; name: string; /** "" when no version was given */ range: string; /** set when the spec names one exact version */ exact?: string }
  | { kind: "fetch"; raw: string; /** "git" | "file" | "remote" */ via: string };

/**
 * Classifies a spec the way npm does (npm-package-arg), except that an existing path always wins,
 * and so does anything that looks like a path (`./x`, `/x`, `x.yaml`).
 * @example parseEnvSpec("@acme/wordle-env@1.1.0") // { kind: "registry", name: "@acme/wordle-env", range: "1.1.0", exact: "1.1.0" }
 */
export function parseEnvSpec(spec: string, cwd = process.cwd()): EnvSpec {
  const trimmed = spec.trim();
  if (trimmed === "") throw new RubricateError("BAD_INPUT", "an empty environment spec: give a file, a folder, a package name (name@version) or a git URL");
  if (/^\.{1,2}([/\\]|$)/.test(trimmed) || isAbsolute(trimmed) || /\.ya?ml$/i.test(trimmed) || existsSync(resolve(cwd, trimmed))) return { kind: "path", path: resolve(cwd, trimmed) };
  let parsed: Npa.Result;
  try {
    parsed = npmPackageArg()(trimmed, cwd);
  } catch (e) {
    throw new RubricateError("BAD_INPUT", `"${spec}" is neither a file nor a package spec npm understands: ${oneLine((e as Error).message)}`);
  }
  switch (parsed.type) {
    case "version":
    case "range":
    case "tag": {
      const range = parsed.rawSpec === "*" || parsed.rawSpec === "" ? "" : parsed.rawSpec;
      return { kind: "registry", raw: trimmed, name: parsed.name!, range, ...(parsed.type === "version" ? { exact: parsed.fetchSpec! } : {}) };
    }
    case "directory":
      return { kind: "path", path: parsed.fetchSpec! };
    case "git":
      // `user/repo` is GitHub shorthand to npm, but `examples/wordel` (a typo under a folder that exists) is a path.
      if (/^[^:@]+\/[^:]+$/.test(trimmed) && existsSync(resolve(cwd, trimmed.split("/")[0]))) return { kind: "path", path: resolve(cwd, trimmed) };
      return { kind: "fetch", raw: trimmed, via: parsed.type };
    case "file":
    case "remote":
      return { kind: "fetch", raw: trimmed, via: parsed.type };
    default:
      throw new RubricateError("BAD_INPUT", `"${spec}": ${parsed.type} specs are not supported; give a file, a folder, name@version or a git URL`);
  }
}

/** A message on one line (npm and git errors span several). */
export const oneLine = (text: string): string => text.replace(/\s+/g, " ").trim();
