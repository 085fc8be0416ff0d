/**
 * A real npm registry for tests: Verdaccio 6.8.0 (a devDependency) in a child process on
 * 127.0.0.1:<ephemeral port>, storage in a temp folder, htpasswd auth with no self-registration,
 * no uplinks (it never proxies anywhere), and a private scope only logged-in users may read.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";

export interface Registry {
  /** http://127.0.0.1:<port>/ (with the trailing slash npm writes). */
  url: string;
  /** The host part .npmrc keys tokens by: //127.0.0.1:<port>/ */
  authKey: string;
  /** Logs in as a user (HTTP basic auth on npm's login endpoint) and returns the token npm would save. */
  login(user: string, password: string): Promise<string>;
  stop(): Promise<void>;
}

const require = createRequire(import.meta.url);

/** Starts Verdaccio in `dir` with these users (name → password); `privateScope` needs a login to read or publish. */
export async function startVerdaccio(dir: string, options: { users: Record<string, string>; privateScope: string }): Promise<Registry> {
  mkdirSync(join(dir, "storage"), { recursive: true });
  // htpasswd's {SHA} form: base64 of SHA-1 of the password (verdaccio-htpasswd reads it).
  const htpasswd = Object.entries(options.users).map(([u, p]) => `${u}:{SHA}${createHash("sha1").update(p).digest("base64")}:autocreated 2026-01-01T00:00:00.000Z`);
  writeFileSync(join(dir, "htpasswd"), `${htpasswd.join("\n")}\n`);
  const config = [
    `storage: ${JSON.stringify(join(dir, "storage"))}`,
    "auth:",
    "  htpasswd:",
    `    file: ${JSON.stringify(join(dir, "htpasswd"))}`,
    "    max_users: -1",
    "uplinks: {}",
    "packages:",
    `  '${options.privateScope}/*':`,
    "    access: $authenticated",
    "    publish: $authenticated",
    "  '**':",
    "    access: $all",
    "    publish: $authenticated",
    "web:",
    "  enable: false",
    "log: { type: stdout, format: pretty, level: error }",
    "",
  ].join("\n");
  writeFileSync(join(dir, "config.yaml"), config);
  const launcher = `const { runServer } = require(${JSON.stringify(require.resolve("verdaccio"))});
runServer(process.argv[1]).then((app) => {
  const server = app.listen(0, "127.0.0.1", () => process.stdout.write("listening " + server.address().port + "\\n"));
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
}, (e) => { process.stderr.write(String((e && e.stack) || e) + "\\n"); process.exit(1); });`;
  const child = spawn(process.execPath, ["-e", launcher, join(dir, "config.yaml")], { stdio: ["ignore", "pipe", "pipe"] });
  const port = await new Promise<number>((done, fail) => {
    let out = "";
    let err = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const m = /listening (\d+)/.exec(out);
      if (m) done(Number(m[1]));
    });
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.on("exit", (code) => fail(new Error(`verdaccio exited (${code}) before listening: ${err}`)));
  });
  const url = `http://127.0.0.1:${port}/`;
  return {
    url,
    authKey: `//127.0.0.1:${port}/`,
    async login(user, password) {
      const res = await fetch(`${url}-/user/org.couchdb.user:${encodeURIComponent(user)}`, {
        method: "PUT",
        headers: { "content-type": "application/json", authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` },
        body: JSON.stringify({ name: user, password }),
      });
      const body = (await res.json()) as { token?: string; error?: string };
      if (!res.ok || !body.token) throw new Error(`login as ${user} failed: ${res.status} ${body.error ?? ""}`);
      return body.token;
    },
    stop: () => stopChild(child),
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once("exit", () => done());
    child.kill("SIGTERM");
    setTimeout(() => child.kill("SIGKILL"), 5000).unref();
  });
}
