/**
 * The sandbox backend table: every backend rubricate can run commands in, with what the rest of
 * the code needs to know about it. The environment schema's `sandbox.backend` enum, the lookup by
 * name, the opt-in rule for the host and the docs table all read this table, so a new backend is
 * its folder plus one entry here (and its tests).
 */
import { bubblewrapBackend } from "./bubblewrap/index.js";
import { dockerBackend, podmanBackend } from "./docker/index.js";
import { unsafeHostBackend } from "./host/index.js";
import type { SandboxBackend } from "./types.js";
import { withMarkedSection } from "../text/markers.js";

/** One row of the backend table. */
export interface SandboxBackendSpec {
  /** The `sandbox.backend:` value of an environment file. */
  readonly name: string;
  readonly backend: SandboxBackend;
  /** What it is, for the docs table. */
  readonly summary: string;
  /** Whether it isolates at all: one that does not is never chosen by a file, only by an explicit `--unsafe-no-sandbox`. */
  readonly isolates: boolean;
  /** Whether it runs a container image (`sandbox.image:`). */
  readonly image: boolean;
}

/** Every backend; the first is the default. */
export const SANDBOX_BACKEND_TABLE = [
  { name: "bubblewrap", backend: bubblewrapBackend, summary: "Linux namespaces over the host's read-only /usr (Debian/Ubuntu: `apt-get install bubblewrap`); memory and processes per sandbox where cgroup v2 is delegated or, as root, cgroup v1 is mounted", isolates: true, image: false },
  { name: "docker", backend: dockerBackend, summary: "one container per sandbox through the docker CLI", isolates: true, image: true },
  { name: "podman", backend: podmanBackend, summary: "one container per sandbox through the podman CLI", isolates: true, image: true },
  { name: "unsafe-host", backend: unsafeHostBackend, summary: "NOT a sandbox: the host, in a temporary folder with per-process limits; only through `--unsafe-no-sandbox`", isolates: false, image: false },
] as const satisfies readonly SandboxBackendSpec[];

/** The sandbox backends by name. */
export type SandboxBackendName = (typeof SANDBOX_BACKEND_TABLE)[number]["name"];

/** Every backend's name, default first. */
export const SANDBOX_BACKENDS = SANDBOX_BACKEND_TABLE.map((b) => b.name) as unknown as readonly [SandboxBackendName, ...SandboxBackendName[]];

/** The names an environment file may choose (the backends that isolate), as the tuple `z.enum` takes. */
export const FILE_SANDBOX_BACKENDS = (SANDBOX_BACKEND_TABLE as readonly SandboxBackendSpec[]).filter((b) => b.isolates).map((b) => b.name) as [SandboxBackendName, ...SandboxBackendName[]];

/** The backends that run a container image. */
export const IMAGE_SANDBOX_BACKENDS = (SANDBOX_BACKEND_TABLE as readonly SandboxBackendSpec[]).filter((b) => b.image).map((b) => b.name);

/** The table row for a name; undefined for a name not in the table. */
export function sandboxBackendSpec(name: string): SandboxBackendSpec | undefined {
  return (SANDBOX_BACKEND_TABLE as readonly SandboxBackendSpec[]).find((b) => b.name === name);
}

/** The markers around the generated table in docs/environments.md. */
export const SANDBOX_TABLE_START = "<!-- sandbox-backends:start (generated from src/sandbox/registry.ts: npm run docs:checks) -->";
export const SANDBOX_TABLE_END = "<!-- sandbox-backends:end -->";

/** The markdown table of backends, one row each in the table's order. */
export function sandboxBackendsTable(table: readonly SandboxBackendSpec[] = SANDBOX_BACKEND_TABLE): string {
  const rows = table.map((b) => `| \`${b.name}\` | ${b.summary.replace(/\|/g, "\\|")} | ${b.image ? "yes" : "no"} | ${b.isolates ? "yes" : "no (`--unsafe-no-sandbox` only)"} |`);
  return ["| `backend:` | what it is | `image:` | chosen in a file |", "| --- | --- | --- | --- |", ...rows].join("\n");
}

/** `text` with the part between the markers replaced by the generated table. */
export function withSandboxBackendsTable(text: string, table: readonly SandboxBackendSpec[] = SANDBOX_BACKEND_TABLE): string {
  return withMarkedSection(text, SANDBOX_TABLE_START, SANDBOX_TABLE_END, sandboxBackendsTable(table), "the sandbox backends table");
}
