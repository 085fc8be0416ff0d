import { RubricateError } from "../errors.js";
import { SANDBOX_BACKENDS, sandboxBackendSpec, type SandboxBackendName } from "./registry.js";
import type { Sandbox, SandboxBackend, SandboxOptions } from "./types.js";

export { DEFAULT_LIMITS, resolveLimits } from "./types.js";
export type { ExecOptions, ExecResult, Sandbox, SandboxBackend, SandboxBind, SandboxLimitHit, SandboxLimits, SandboxOptions, SandboxProcess } from "./types.js";
export { bubblewrapBackend, sweepStaleSandboxes } from "./bubblewrap/index.js";
export { containerBackend, dockerBackend, podmanBackend } from "./docker/index.js";
export { unsafeHostBackend } from "./host/index.js";

export { SANDBOX_BACKEND_TABLE, SANDBOX_BACKENDS, type SandboxBackendName } from "./registry.js";

/** A backend by name. */
export function sandboxBackend(name: SandboxBackendName): SandboxBackend {
  const spec = sandboxBackendSpec(name);
  if (!spec) throw new RubricateError("BAD_INPUT", `unknown sandbox backend "${String(name)}" (known: ${SANDBOX_BACKENDS.join(", ")})`);
  return spec.backend;
}

/**
 * Creates a sandbox (the table's first backend, bubblewrap, unless named). A backend that does not isolate (the host) needs `unsafe: true`, the
 * library's form of `--unsafe-no-sandbox`.
 * @example const box = await createSandbox({ limits: { commandTimeoutMs: 5000 } }); try { (await box.exec("ls")).stdout } finally { await box.destroy() }
 */
export async function createSandbox(options: SandboxOptions & { backend?: SandboxBackendName; unsafe?: boolean } = {}): Promise<Sandbox> {
  const name = options.backend ?? SANDBOX_BACKENDS[0];
  const backend = sandboxBackend(name);
  if (!sandboxBackendSpec(name)!.isolates && !options.unsafe) throw new RubricateError("SANDBOX", `the ${name} backend runs commands on the host: it needs the explicit --unsafe-no-sandbox flag`);
  return backend.create(options);
}
export { startHostBridge, startPythonRepl, type HostBridge, type HostCall, type HostAnswer, type PythonRepl, type ReplResult } from "./repl/index.js";
