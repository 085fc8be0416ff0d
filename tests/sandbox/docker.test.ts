import { spawnSync } from "node:child_process";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { containerBackend, dockerBackend } from "../../src/sandbox/docker/index.js";
import { tempDir } from "../helpers/cli.js";

/**
 * The docker/podman backend. Against a real engine when one answers (`docker info`); this
 * machine has the docker client but no engine, so that part skips here (docker is optional:
 * bubblewrap is the default backend and the one CI installs). The flags we hand the CLI are
 * checked always, with a stand-in `docker` on PATH that logs its arguments and runs `exec`
 * commands with sh.
 */
const engine = spawnSync("docker", ["info", "--format", "{{.ID}}"], { stdio: "ignore", timeout: 10_000 }).status === 0;
if (!engine) process.stderr.write("[skip] docker engine tests: no docker engine answers `docker info` here\n");

describe("container backend: the docker CLI contract", () => {
  const dir = tempDir("rubricate-fake-docker-");
  const log = join(dir, "calls.log");
  const fake = join(dir, "docker");
  writeFileSync(
    fake,
    `#!/bin/sh
printf '%s\\n' "$*" >> ${JSON.stringify(log)}
case "$1" in
  info) exit 0 ;;
  run) echo 0123456789abcdef ; exit 0 ;;
  rm) exit 0 ;;
  exec) shift; while [ "$#" -gt 0 ]; do case "$1" in -i) shift ;; -w|-e) shift 2 ;; *) break ;; esac; done; shift; exec "$@" ;;
esac
exit 1
`,
  );
  chmodSync(fake, 0o755);
  const oldPath = process.env.PATH;
  process.env.PATH = `${dir}:${oldPath}`;
  afterAll(() => {
    process.env.PATH = oldPath;
  });

  it("starts an isolated container, runs commands under an in-container timeout, removes it", async () => {
    const backend = containerBackend("docker");
    expect(await backend.unavailable()).toBeNull();
    const box = await backend.create({ image: "debian:bookworm-slim", limits: { processes: 50, memoryBytes: 256 * 1024 * 1024, commandTimeoutMs: 3000 } });
    const r = await box.exec("echo hi");
    expect(r).toMatchObject({ exitCode: 0, stdout: "hi\n" });
    await box.destroy();
    const calls = readFileSync(log, "utf8").split("\n");
    const run = calls.find((c) => c.startsWith("run "))!;
    for (const flag of ["--network none", "--read-only", "--cap-drop ALL", "--security-opt no-new-privileges", "--pids-limit 50", `--memory ${256 * 1024 * 1024}`, "--user 65534:65534", "--label rubricate.sandbox"]) expect(run).toContain(flag);
    expect(run).toMatch(/--tmpfs \/work:rw,exec,size=\d+/);
    expect(run).toMatch(/debian:bookworm-slim sleep infinity$/);
    expect(calls.find((c) => c.startsWith("exec "))).toMatch(/^exec -i -w \/work rubricate-\S+ timeout -s KILL 3 \/bin\/sh -c echo hi$/);
    expect(calls.find((c) => c.startsWith("rm "))).toMatch(/^rm -f rubricate-/);
  });
});

describe("container backend: a checker it cannot guard", () => {
  it("says so once per process, as a warning, and still opens (bubblewrap refuses instead)", async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on("warning", onWarning);
    try {
      const dir = tempDir("rubricate-fake-podman-");
      writeFileSync(join(dir, "podman"), `#!/bin/sh\ncase "$1" in info) exit 0 ;; run) echo 0123456789abcdef ;; esac\nexit 0\n`);
      chmodSync(join(dir, "podman"), 0o755);
      const oldPath = process.env.PATH;
      process.env.PATH = `${dir}:${oldPath}`;
      try {
        const backend = containerBackend("podman");
        for (let i = 0; i < 2; i++) await (await backend.create({ guardChecker: true })).destroy();
        await (await backend.create({})).destroy();
      } finally {
        process.env.PATH = oldPath;
      }
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((w) => [w.name, (w as NodeJS.ErrnoException).code])).toEqual([["RubricateWarning", "SANDBOX"]]);
      expect(warnings[0].message).toMatch(/^podman: final-state checks run without the checker's guard/);
    } finally {
      process.off("warning", onWarning);
    }
  });
});

describe.skipIf(!engine)("docker engine [skipped here: no engine answers]", () => {
  it("confines a command: no network, read-only root, killed at its wall-clock limit", async () => {
    const box = await dockerBackend.create({ limits: { commandTimeoutMs: 2000 } });
    try {
      expect((await box.exec("echo x > /etc/x")).exitCode).not.toBe(0);
      expect((await box.exec("ls /sys/class/net")).stdout.trim()).toBe("lo");
      const hang = await box.exec("sleep 100");
      expect(hang.limit).toBe("timeout");
      await box.writeFile("a/b.txt", "data");
      expect((await box.readFile("a/b.txt")).toString()).toBe("data");
    } finally {
      await box.destroy();
    }
  });
});
