import { RubricateError } from "../errors.js";
import { bubblewrapBackend } from "./bubblewrap/index.js";
import { dockerBackend, podmanBackend } from "./docker/index.js";
import { unsafeHostBackend } from "./host/index.js";
import type { Sandbox, SandboxBackend, SandboxOptions } from "./types.js";

export { DEFAULT_LIMITS, resolveLimits } from "./types.js";
export type { ExecOptions, ExecResult, Sandbox, SandboxBackend, SandboxBind, SandboxLimitHit, SandboxLimits, SandboxOptions, SandboxProcess } from "./types.js";
export { bubblewrapBackend, sweepStaleSandboxes } from "./bubblewrap/index.js";
export { containerBackend, dockerBackend, podmanBackend } from "./docker/index.js";
export { unsafeHostBackend } from "./host/index.js";

/** The backends by name; "unsafe-host" runs on the host and needs an explicit opt-in. */
export const SANDBOX_BACKENDS = ["bubblewrap", "docker", "podman", "unsafe-host"] as const;
/** The sandbox backends by name. */
export type SandboxBackendName = (typeof SANDBOX_BACKENDS)[number];

/** A backend by name. */
export function sandboxBackend(name: SandboxBackendName): SandboxBackend {
  switch (name) {
    case "bubblewrap":
      return bubblewrapBackend;
    case "docker":
      return dockerBackend;
    case "podman":
      return podmanBackend;
    case "unsafe-host":
      return unsafeHostBackend;
    default:
      throw new RubricateError("BAD_INPUT", `unknown sandbox backend "${String(name)}" (known: ${SANDBOX_BACKENDS.join(", ")})`);
  }
}

/**
 * Creates a sandbox (bubblewrap unless named). Running on the host needs `unsafe: true`, the
 * library's form of `--unsafe-no-sandbox`.
 * @example const box = await createSandbox({ limits: { commandTimeoutMs: 5000 } }); try { (await box.exec("ls")).stdout } finally { await box.destroy() }
 */
export async function createSandbox(options: SandboxOptions & { backend?: SandboxBackendName; unsafe?: boolean } = {}): Promise<Sandbox> {
  const name = options.backend ?? "bubblewrap";
  if (name === "unsafe-host" && !options.unsafe) throw new RubricateError("SANDBOX", "running commands on the host needs the explicit --unsafe-no-sandbox flag");
  return sandboxBackend(name).create(options);
}
export { startHostBridge, startPythonRepl, type HostBridge, type HostCall, type HostAnswer, type PythonRepl, type ReplResult } from "./repl/index.js";
