import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createSandbox, SANDBOX_BACKEND_TABLE, sandboxBackend } from "../../src/sandbox/index.js";
import { sandboxBackendsTable, withSandboxBackendsTable, type SandboxBackendSpec } from "../../src/sandbox/registry.js";
import type { Sandbox, SandboxBackend } from "../../src/sandbox/types.js";
import { isRubricateError } from "../../src/errors.js";

afterEach(() => {
  vi.doUnmock("../../src/sandbox/registry.js");
  vi.resetModules();
});

/** A backend that records what it was asked to create and makes nothing real. */
function fakeBackend(name: string): SandboxBackend & { created: number } {
  const backend = {
    name,
    created: 0,
    unavailable: async () => null,
    create: async () => {
      backend.created++;
      return { id: `${name}-1`, backend: name } as unknown as Sandbox;
    },
  };
  return backend;
}

/** The registry module with `extra` rows added to the real table, as a new backend's entry would. */
async function withExtraBackends(extra: SandboxBackendSpec[]) {
  vi.resetModules();
  vi.doMock("../../src/sandbox/registry.js", async (importOriginal) => {
    const real = await importOriginal<typeof import("../../src/sandbox/registry.js")>();
    const table = [...real.SANDBOX_BACKEND_TABLE, ...extra] as readonly SandboxBackendSpec[];
    return {
      ...real,
      SANDBOX_BACKEND_TABLE: table,
      SANDBOX_BACKENDS: table.map((b) => b.name),
      FILE_SANDBOX_BACKENDS: table.filter((b) => b.isolates).map((b) => b.name),
      IMAGE_SANDBOX_BACKENDS: table.filter((b) => b.image).map((b) => b.name),
      sandboxBackendSpec: (name: string) => table.find((b) => b.name === name),
    };
  });
}

describe("the sandbox backend table", () => {
  it("every backend is reached by its name, the default is bubblewrap, and an unknown name is BAD_INPUT listing them", () => {
    for (const spec of SANDBOX_BACKEND_TABLE) expect(sandboxBackend(spec.name)).toBe(spec.backend);
    expect(SANDBOX_BACKEND_TABLE[0].name).toBe("bubblewrap");
    try {
      sandboxBackend("nope" as never);
      expect.unreachable();
    } catch (e) {
      expect(isRubricateError(e, "BAD_INPUT")).toBe(true);
      expect((e as Error).message).toContain("bubblewrap, docker, podman, unsafe-host");
    }
  });

  it("the host backend cannot be created without the explicit opt-in", async () => {
    await expect(createSandbox({ backend: "unsafe-host" })).rejects.toThrow(/--unsafe-no-sandbox/);
  });

  it("a backend added in the table alone reaches the environment schema, createSandbox, the opt-in rule and the docs table", async () => {
    const box = fakeBackend("fakebox");
    const leaky = fakeBackend("leakybox");
    await withExtraBackends([
      { name: "fakebox", backend: box, summary: "a fake for tests", isolates: true, image: true },
      { name: "leakybox", backend: leaky, summary: "a fake that does not isolate", isolates: false, image: false },
    ]);
    const { SandboxConfigSchema } = await import("../../src/env/schema.js");
    expect(SandboxConfigSchema.parse({ backend: "fakebox" }).backend).toBe("fakebox");
    expect(SandboxConfigSchema.shape.image.description).toContain("fakebox");
    // A backend that does not isolate is never chosen by a file, only by the explicit flag.
    expect(SandboxConfigSchema.safeParse({ backend: "leakybox" }).success).toBe(false);

    const { createSandbox: create } = await import("../../src/sandbox/index.js");
    expect((await create({ backend: "fakebox" as never })).backend).toBe("fakebox");
    expect(box.created).toBe(1);
    await expect(create({ backend: "leakybox" as never })).rejects.toThrow(/leakybox backend runs commands on the host.*--unsafe-no-sandbox/);
    expect(leaky.created).toBe(0);
    await create({ backend: "leakybox" as never, unsafe: true });
    expect(leaky.created).toBe(1);

    const registry = await import("../../src/sandbox/registry.js");
    expect(sandboxBackendsTable(registry.SANDBOX_BACKEND_TABLE)).toContain("| `fakebox` | a fake for tests | yes | yes |");
  });

  it("docs/environments.md holds the table generated from the backends (never stale)", () => {
    const doc = readFileSync("docs/environments.md", "utf8");
    expect(doc, "docs/environments.md is stale: run `npm run docs:checks`").toBe(withSandboxBackendsTable(doc));
    for (const spec of SANDBOX_BACKEND_TABLE) expect(doc).toContain(`| \`${spec.name}\` |`);
  });

  it("the docs table refuses a document without its markers instead of writing nowhere", () => {
    expect(() => withSandboxBackendsTable("# no table")).toThrow(/markers are missing/);
  });
});
