/**
 * Tests that need a system package (Chromium, bubblewrap, redis-server, python3, …).
 *
 * On a developer's machine without the package the tests are skipped and the reason is printed;
 * under `CI=true` a missing package fails instead, because `.ci/run` installs every such package
 * and a silent skip there would hide a broken install step.
 *
 * @example
 * const python = needs("python3", () => which("python3"), "apt-get install python3");
 * python.describe("verl reward file", () => { it("loads by path", () => { … python.path … }) });
 */
import { execFileSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { describe, it } from "vitest";

export interface SystemNeed {
  /** The tool's path (or what `find` returned) when present. */
  path?: string;
  available: boolean;
  /** Why the tests are skipped (or fail under CI), when the tool is absent. */
  reason?: string;
  /** `describe` that runs when present, skips with the reason locally, fails under CI. */
  describe: (title: string, body: () => void) => void;
}

/** The first executable named `cmd` on PATH, or undefined. */
export function which(cmd: string, searchPath: string | undefined = process.env.PATH): string | undefined {
  for (const dir of (searchPath ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, cmd);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** True when `cmd args…` runs and exits 0 within 60 s (a tool that is present but broken counts as absent; `import torch` alone can take 10 s on a loaded machine). */
export function runs(cmd: string, args: string[]): boolean {
  try {
    execFileSync(cmd, args, { stdio: "ignore", timeout: 60_000 });
    return true;
  } catch {
    return false;
  }
}

export const isCI = process.env.CI === "true" || process.env.CI === "1";

/**
 * Gates tests on a system package. `find` returns its path (or true) when usable; `install` says
 * how to get it (shown in the skip reason and the CI failure).
 */
export function needs(name: string, find: () => string | boolean | undefined, install: string): SystemNeed {
  let found: string | boolean | undefined;
  try {
    found = find();
  } catch {
    found = undefined;
  }
  const available = Boolean(found);
  const path = typeof found === "string" ? found : undefined;
  const reason = available ? undefined : `${name} is not installed (${install})`;
  if (!available && !isCI) process.stderr.write(`[skip] tests needing ${name} are skipped: ${reason}\n`);
  return {
    path,
    available,
    reason,
    describe(title, body) {
      if (available) describe(title, body);
      else if (isCI) describe(title, () => it(`needs ${name}`, () => { throw new Error(`CI=true but ${reason}; .ci/run must install it`); }));
      else describe.skip(`${title} [skipped: ${reason}]`, body);
    },
  };
}

/** Where Debian, Ubuntu (deb and snap) and Google's packages put a Chromium-family browser. */
export const CHROMIUM_PATHS = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/lib/chromium/chromium",
  "/snap/bin/chromium",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
  "/opt/google/chrome/chrome",
];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * A Chromium to drive with playwright-core: `$RUBRICATE_CHROMIUM` or `$CHROMIUM_PATH` when set
 * (only that one: a variable naming a missing file is absent, not a reason to look elsewhere),
 * else `chromium`, `chromium-browser`, `google-chrome` on PATH, else the usual install paths.
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env, paths: readonly string[] = CHROMIUM_PATHS): string | undefined {
  const chosen = env.RUBRICATE_CHROMIUM || env.CHROMIUM_PATH;
  if (chosen) return executable(chosen) ? chosen : undefined;
  for (const cmd of ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]) {
    const found = which(cmd, env.PATH);
    if (found) return found;
  }
  return paths.find(executable);
}

/** Browser tests: skip locally without Chromium, fail under CI (which installs Debian's `chromium`). */
export const chromiumNeed = (): SystemNeed => needs("chromium", () => findChromium(), "apt-get install chromium, or set RUBRICATE_CHROMIUM to a Chromium binary");
