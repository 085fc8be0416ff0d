/**
 * `rubricate hub serve`'s web app (hono): the environment list and pages, the same data as JSON
 * under /api, results pushed by `eval --push`, and evals queued on the operator's models.
 *
 * Who sees what is the registry's call, per request: the visitor's token (a bearer header, or the
 * sign-in cookie) is passed to the registry and forgotten; a package the registry does not show
 * to that token is "not found" here, and so are its results and the progress of its evals.
 */
import { Hono, type Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { bodyLimit } from "hono/body-limit";
import { getCookie, setCookie, deleteCookie } from "hono/cookie";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import { secureHeaders, NONCE } from "hono/secure-headers";
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { LRUCache } from "lru-cache";
import { describeEnvironment, tarballTextFiles } from "../hub/registry-search.js";
import { HubResultSchema } from "../hub/results.js";
import { isRubricateError, RubricateError, type ErrorCode } from "../errors.js";
import { inconsistencies } from "./consistency.js";
import { compareModels, criterionRates, history, leaderboard } from "./leaderboard.js";
import { curvesOf, curvesSvg, seriesEnvs } from "./curves.js";
import { EVALUATE_SCRIPT, envPage, layout, listPage, loginPage, messagePage, seriesPage, type EnvView } from "./pages.js";
import { renderReadme } from "./readme.js";
import { sha256Hex } from "../text/sha256.js";
import { RegistryClient, versionDoc, type Packument } from "./registry.js";
import type { ResultStore } from "./store.js";
import type { EvalRunner } from "./evals.js";
import { addressKey, DEFAULT_UNKNOWN_TOKENS_PER_MINUTE, DEFAULT_WRITES_PER_MINUTE, MinuteLimit } from "./limits.js";
import { issueLines } from "../config/issues.js";

/** Default limit of a pushed result's body: a summary with rollouts of a few hundred tasks. */
export const DEFAULT_BODY_LIMIT = 5 * 1024 * 1024;
const COOKIE = "rubricate_token";

export interface HubAppOptions {
  registries: RegistryClient;
  store: ResultStore;
  /** Largest accepted request body in bytes (default 5 MiB). */
  bodyLimit?: number;
  /** Writes (pushed results, started evals) one token may make per minute (default 30; 0: no limit). */
  writesPerMinute?: number;
  /** Tokens the registry has not accepted lately that one client address may present per minute (default 10; 0: no limit). */
  unknownTokensPerMinute?: number;
  /**
   * Behind a reverse proxy: the request header that carries the visitor's address (its last
   * comma-separated entry, the one the proxy added), e.g. `x-forwarded-for`. Without it the
   * address is the connection's, which behind a proxy is the proxy's for every visitor.
   */
  clientIpHeader?: string;
  /** The clock of the limits, for tests. */
  now?: () => number;
  /** Queues evals on the operator's models; without it there is no Evaluate button. */
  evals?: EvalRunner;
  /** One line per failed request (never a token, a header or a body). */
  log?: (line: string) => void;
}

/** An error the API answers with its own status and code. */
class HttpError extends Error {
  constructor(readonly status: 400 | 401 | 404 | 409 | 413 | 422 | 429 | 503, readonly code: ErrorCode, message: string) {
    super(message);
  }
}

/** The codes of hono's own refusals (its middleware throws an HTTPException) by status; other 4xx are INVALID_REQUEST, other 5xx INTERNAL. */
const REFUSAL_CODES: Partial<Record<number, ErrorCode>> = {
  401: "UNAUTHORIZED",
  // The only 403 hono raises here is the CSRF check's.
  403: "CROSS_ORIGIN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  413: "BODY_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  429: "RATE_LIMITED",
  // A 5xx thrown on purpose: hono's timeout middleware's 504; other 5xx are INTERNAL.
  504: "TIMEOUT",
};

/** What an HTTPException's answer says: its own message, or (the CSRF check gives none) why the hub refuses it. */
function refusalMessage(err: HTTPException): string {
  if (err.message) return err.message;
  if (err.status === 403) {
    return "refused: a form or text body is taken only from this hub's own pages (same Origin), so another site cannot act with a visitor's sign-in; API clients send Content-Type: application/json";
  }
  return err.status >= 500 ? `the hub could not answer (HTTP ${err.status})` : `refused (HTTP ${err.status})`;
}

/** The visitor's registry token: `Authorization: Bearer …`, else the sign-in cookie. */
function tokenOf(c: Context): string | undefined {
  const auth = c.req.header("authorization");
  const bearer = auth && /^Bearer\s+(\S+)$/i.exec(auth)?.[1];
  return bearer || getCookie(c, COOKIE) || undefined;
}

/** Semver-ish order of a packument's versions, oldest first, by publish time when the registry gives it. */
function versionsOf(doc: Packument): { version: string; date?: string }[] {
  return Object.keys(doc.versions)
    .map((version) => ({ version, date: doc.time?.[version] }))
    .sort((a, b) => (a.date ?? "").localeCompare(b.date ?? ""));
}

/** A package's `rubricate` field may summarise the environment (used when its files cannot be read). */
function manifestSummary(field: unknown): { tasks?: number; criteria?: string[] } {
  if (typeof field !== "object" || field === null) return {};
  const f = field as { tasks?: unknown; criteria?: unknown };
  return {
    ...(typeof f.tasks === "number" ? { tasks: f.tasks } : {}),
    ...(Array.isArray(f.criteria) && f.criteria.every((x) => typeof x === "string") ? { criteria: f.criteria as string[] } : {}),
  };
}

export function createHubApp(options: HubAppOptions): Hono<{ Variables: { secureHeadersNonce?: string } }> {
  const { registries, store } = options;
  const log = options.log ?? (() => {});
  const app = new Hono<{ Variables: { secureHeadersNonce?: string } }>();
  // Keyed by the tarball's integrity, checked against the bytes read: the same key is the same
  // package content whoever asked, and a visitor only reaches it after the registry showed them
  // the package document.
  const descriptions = new LRUCache<string, { tasks?: number; criteria: string[] }>({ max: 1000 });
  const perMinute = options.writesPerMinute ?? DEFAULT_WRITES_PER_MINUTE;
  const writes = perMinute > 0 ? new MinuteLimit(perMinute, options.now) : undefined;
  const unknownPerMinute = options.unknownTokensPerMinute ?? DEFAULT_UNKNOWN_TOKENS_PER_MINUTE;
  const unknownTokens = unknownPerMinute > 0 ? new MinuteLimit(unknownPerMinute, options.now) : undefined;
  // sha256 of tokens the registry accepted in the last ten minutes: they skip the count of unknown
  // tokens (the registry is still asked about them on every request, so a revoked token stops working at once).
  const acceptedTokens = new LRUCache<string, true>({ max: 10_000, ttl: 10 * 60_000 });

  /** The visitor's address as counted (`addressKey`): the proxy's header when the operator named one, else the connection's. */
  const clientAddress = (c: Context): string => {
    const forwarded = options.clientIpHeader ? c.req.header(options.clientIpHeader) : undefined;
    if (forwarded) return addressKey(forwarded.split(",").at(-1)!.trim());
    // hono's node server passes the request as `incoming`; app.request() in tests has no connection.
    return addressKey((c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket.remoteAddress ?? "unknown");
  };

  type Who = { user?: string; wait?: number };
  // One question per request and token: the gate below and the route may both need the answer.
  const answers = new WeakMap<Request, { token: string; who: Promise<Who> }>();

  /**
   * The registry's user for `token`, or undefined when it refuses the token; `wait` (seconds) instead
   * when the token is not one the registry accepted lately and the visitor's address presented its
   * unknown tokens for this minute, in which case the registry is not asked.
   */
  const whoami = (c: Context, token: string): Promise<Who> => {
    const known = answers.get(c.req.raw);
    if (known?.token === token) return known.who;
    const who = askRegistry(c, token);
    answers.set(c.req.raw, { token, who });
    return who;
  };

  const askRegistry = async (c: Context, token: string): Promise<Who> => {
    const hash = sha256Hex(token);
    const address = unknownTokens && !acceptedTokens.has(hash) ? clientAddress(c) : undefined;
    if (address !== undefined) {
      const wait = unknownTokens!.take(address);
      if (wait > 0) return { wait };
    }
    const user = await registries.whoami(token);
    if (!user) {
      acceptedTokens.delete(hash);
      return {};
    }
    acceptedTokens.set(hash, true);
    if (address !== undefined) unknownTokens!.give(address);
    return { user };
  };

  /** A 429 with Retry-After: `what` made the limit's count this minute (`option` sets it). */
  const rateLimited = (c: Context, wait: number, what: string, option: string) => {
    c.header("retry-after", String(wait));
    return new HttpError(429, "RATE_LIMITED", `${what} in the last minute, the hub's limit (hub serve ${option}): retry in ${wait} s`);
  };
  const tooManyUnknownTokens = (c: Context, wait: number) =>
    rateLimited(c, wait, `this address presented ${unknownPerMinute} tokens the registry had not accepted`, "--unknown-tokens-per-minute");

  /**
   * Who makes a write: its token and the registry's user for it. No token, or one the registry
   * refuses, is a 401 (`needs` says for what); a token over its writes this minute, or an unknown
   * token from an address over its unknown tokens, is a 429 with the seconds to wait, before the
   * registry is asked about it.
   */
  const writer = async (c: Context, needs: string): Promise<{ token: string; user: string }> => {
    const unauthorized = () => new HttpError(401, "UNAUTHORIZED", `${needs} needs a registry token the registry accepts (Authorization: Bearer <token>)`);
    const token = tokenOf(c);
    if (!token) throw unauthorized();
    const wait = writes?.take(sha256Hex(token)) ?? 0;
    if (wait > 0) throw rateLimited(c, wait, `this token made ${perMinute} writes`, "--writes-per-minute");
    const who = await whoami(c, token);
    if (who.wait) throw tooManyUnknownTokens(c, who.wait);
    if (!who.user) throw unauthorized();
    return { token, user: who.user };
  };

  /** Task count and criteria read from the version's own files (YAML only; nothing of it runs). */
  const describeVersion = async (doc: Packument, version: string, token: string | undefined) => {
    const vdoc = versionDoc(doc, version);
    if (!vdoc) return undefined;
    const integrity = vdoc.dist.integrity;
    const cached = integrity ? descriptions.get(integrity) : undefined;
    if (cached) return cached;
    const tgz = await registries.tarball(doc, version, token);
    if (!tgz || (integrity && `sha512-${createHash("sha512").update(tgz).digest("base64")}` !== integrity)) return undefined;
    const files = await tarballTextFiles(tgz).catch(() => undefined);
    if (!files) return undefined;
    const { tasks, criteria } = describeEnvironment(files, vdoc.rubricate);
    const description = { ...(tasks !== undefined ? { tasks } : {}), criteria: criteria.map((c) => c.id) };
    if (integrity) descriptions.set(integrity, description);
    return description;
  };

  app.use(
    secureHeaders({
      contentSecurityPolicy: { defaultSrc: ["'self'"], scriptSrc: [NONCE], styleSrc: ["'unsafe-inline'"], imgSrc: ["'self'", "https:", "data:"], frameAncestors: ["'none'"], formAction: ["'self'"] },
      referrerPolicy: "no-referrer",
    }),
  );
  // Form posts from another origin are refused: the sign-in cookie must not act for another site.
  app.use(csrf());
  app.use(
    bodyLimit({
      maxSize: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
      onError: (c) => c.json({ error: { code: "BODY_TOO_LARGE", message: `the body is over the hub's limit of ${options.bodyLimit ?? DEFAULT_BODY_LIMIT} bytes` } }, 413),
    }),
  );

  // A token the registry has not accepted lately is checked once, counted against the visitor's
  // address, before any route passes it on: reads pass the token to the registry too (a private
  // package shows or not), so every route would otherwise relay guesses. A refused token goes on
  // as before (the registry decides what it may read); an address over its count gets 429.
  app.use(async (c, next) => {
    const token = tokenOf(c);
    if (token && unknownTokens && !acceptedTokens.has(sha256Hex(token))) {
      const who = await whoami(c, token);
      if (who.wait) throw tooManyUnknownTokens(c, who.wait);
    }
    await next();
  });

  /** The hub's shape of an error: `{"error": {code, message}}` under /api, the error page elsewhere. */
  const errorAnswer = (c: Context, status: ContentfulStatusCode, code: ErrorCode, message: string) =>
    c.req.path.startsWith("/api/") ? c.json({ error: { code, message } }, status) : c.html(layout("Error", messagePage("Error", message)), status);

  app.onError((err, c) => {
    if (err instanceof HttpError) return errorAnswer(c, err.status, err.code, err.message);
    // hono's middleware (the CSRF check) refuses by throwing: the visitor's mistake, not the hub's, so no log line.
    if (err instanceof HTTPException && err.status < 500) return errorAnswer(c, err.status, REFUSAL_CODES[err.status] ?? "INVALID_REQUEST", refusalMessage(err));
    // Any other 5xx thrown on purpose (hono's timeout middleware's 504, a 503 with Retry-After) is
    // the hub's side, so it is logged, but as the answer it is: its status and message, one line
    // without a stack (the timeout's exception is one object made at load, its stack no request's),
    // and the visitor gets that status, message and Retry-After, not a 500. A plain 500 (hono's
    // own, for a bug of the hub's) is a crash below.
    if (err instanceof HTTPException && err.status > 500) {
      log(`${c.req.method} ${c.req.path}: HTTP ${err.status}${err.message ? `: ${err.message}` : ""}`);
      const retryAfter = err.res?.headers.get("retry-after");
      if (retryAfter) c.header("retry-after", retryAfter);
      return errorAnswer(c, err.status, REFUSAL_CODES[err.status] ?? "INTERNAL", refusalMessage(err));
    }
    const known = isRubricateError(err) && err.code === "REGISTRY_DOWN";
    // The log names the request and the error, never a header: the token stays out of it.
    log(`${c.req.method} ${c.req.path}: ${isRubricateError(err) ? `${err.code}: ${err.message}` : (err.stack ?? String(err))}`);
    const status = known ? 503 : 500;
    const message = known ? (err as RubricateError).message : "internal error (see the hub's log)";
    return errorAnswer(c, status, known ? "REGISTRY_DOWN" : "INTERNAL", message);
  });
  app.notFound((c) => (c.req.path.startsWith("/api/") ? c.json({ error: { code: "NOT_FOUND", message: `no route ${c.req.method} ${c.req.path}` } }, 404) : c.html(layout("Not found", messagePage("Not found", "No such page.")), 404)));

  /** The signed-in user: the registry's name for this token, or undefined (also while its address is over its unknown tokens). */
  const userOf = async (c: Context) => {
    const token = tokenOf(c);
    return token ? (await whoami(c, token)).user : undefined;
  };

  const packumentOrThrow = async (c: Context, name: string) => {
    const doc = await registries.packument(name, tokenOf(c));
    if (!doc) throw new HttpError(404, "NOT_FOUND", `no environment ${name} here (or the registry does not show it to you: private packages need a token)`);
    return doc;
  };

  /** The environment page's data, for the HTML page and /api/envs/:name alike. */
  const envView = async (c: Context, name: string, wanted?: string): Promise<EnvView> => {
    const doc = await packumentOrThrow(c, name);
    const versions = versionsOf(doc);
    const version = wanted ?? doc["dist-tags"]?.latest ?? versions.at(-1)?.version;
    const vdoc = version ? versionDoc(doc, version) : undefined;
    if (!version || !vdoc) throw new HttpError(404, "UNKNOWN_VERSION", `${name} has no version ${wanted}`);
    const all = store.forEnv(name);
    const results = all.filter((r) => r.result.env.version === version);
    const rates = criterionRates(results);
    const summary = manifestSummary(vdoc.rubricate);
    const a = c.req.query("a");
    const b = c.req.query("b");
    const fromResults = results.length ? Math.max(...results.map((r) => r.result.stats.tasks)) : undefined;
    const files = await describeVersion(doc, version, tokenOf(c));
    const tasks = files?.tasks ?? summary.tasks ?? fromResults;
    return {
      name,
      description: vdoc.description ?? "",
      version,
      versions: versions.reverse(),
      ...(vdoc.dist.integrity ? { integrity: vdoc.dist.integrity } : {}),
      readmeHtml: renderReadme(vdoc.readme || doc.readme || ""),
      install: `npm install ${name}@${version}`,
      ...(tasks !== undefined ? { tasks } : {}),
      criteria: files?.criteria.length ? files.criteria : (summary.criteria ?? rates.criteria),
      leaderboard: leaderboard(results),
      rates,
      ...(a && b ? { comparison: compareModels(results, a, b) } : {}),
      history: history(all, versionsOf(doc).map((v) => v.version)),
      series: store.seriesOn(name),
      ...(options.evals ? { evalModels: options.evals.models } : {}),
      signedIn: Boolean(tokenOf(c)),
    };
  };

  /**
   * A route for both package name forms: `@scope/name` (two path segments) and `name`. One
   * pattern with a slash inside a parameter does not match when more segments follow it.
   */
  const envRoute = (prefix: string, suffix: string, handler: (c: Context, name: string) => Response | Promise<Response>) => {
    app.get(`${prefix}/:scope{@[^/]+}/:pkg${suffix}`, (c) => handler(c, `${c.req.param("scope")}/${c.req.param("pkg")}`));
    app.get(`${prefix}/:pkg{[^@/][^/]*}${suffix}`, (c) => handler(c, c.req.param("pkg")));
  };

  // Pages.
  app.get("/", async (c) => {
    const q = c.req.query("q") ?? "";
    const envs = await registries.search(q, tokenOf(c));
    return c.html(layout("Environments", listPage(envs, q), { user: await userOf(c) }));
  });
  envRoute("/envs", "", async (c, name) => {
    const view = await envView(c, name, c.req.query("version"));
    return c.html(layout(view.name, envPage(view), { user: await userOf(c), nonce: c.get("secureHeadersNonce"), script: view.evalModels ? EVALUATE_SCRIPT : undefined }));
  });
  app.get("/series/:series", async (c) => {
    const body = await seriesData(c, c.req.param("series"));
    return c.html(layout(`Curves: ${body.curves.series}`, seriesPage(body.curves, curvesSvg(body.curves), body.envs, body.heldOut), { user: await userOf(c) }));
  });
  // Browsers ask for it on every page; no icon, and no 404 in their console.
  app.get("/favicon.ico", (c) => c.body(null, 204));
  app.get("/login", (c) => c.html(layout("Sign in", loginPage())));
  app.post("/login", async (c) => {
    const form = await c.req.parseBody();
    const token = typeof form.token === "string" ? form.token.trim() : "";
    const who = token ? await whoami(c, token) : {};
    if (who.wait) {
      c.header("retry-after", String(who.wait));
      return c.html(layout("Sign in", loginPage(`Too many tokens the registry did not accept came from your address in the last minute: try again in ${who.wait} s.`)), 429);
    }
    if (!who.user) return c.html(layout("Sign in", loginPage("The registry did not accept that token.")), 401);
    // The browser keeps the token; the hub only reads it back on each request.
    setCookie(c, COOKIE, token, { httpOnly: true, sameSite: "Strict", path: "/", secure: new URL(c.req.url).protocol === "https:" });
    return c.redirect("/");
  });
  app.get("/logout", (c) => {
    deleteCookie(c, COOKIE, { path: "/" });
    return c.redirect("/");
  });

  // The JSON API: the same data.
  app.get("/api/envs", async (c) => c.json({ envs: await registries.search(c.req.query("q") ?? "", tokenOf(c)) }));
  envRoute("/api/envs", "", async (c, name) => c.json(await envView(c, name, c.req.query("version"))));
  envRoute("/api/envs", "/history", async (c, name) => c.json((await envView(c, name)).history));
  envRoute("/api/envs", "/:version/results", async (c, name) => {
    const view = await envView(c, name, c.req.param("version"));
    const results = store.forEnv(view.name, view.version).map(({ id, receivedAt, result }) => ({ id, receivedAt, result }));
    return c.json({ name: view.name, version: view.version, leaderboard: view.leaderboard, criteria: view.rates, results });
  });
  envRoute("/api/envs", "/:version/compare", async (c, name) => {
    const view = await envView(c, name, c.req.param("version"));
    const a = c.req.query("a");
    const b = c.req.query("b");
    if (!a || !b) throw new HttpError(400, "INVALID_REQUEST", "compare needs ?a=<model>&b=<model>");
    return c.json(compareModels(store.forEnv(view.name, view.version), a, b));
  });
  app.get("/api/series/:series", async (c) => {
    const body = await seriesData(c, c.req.param("series"));
    return c.json(body.curves);
  });

  /** A series' curves, over the environments this visitor may see. */
  async function seriesData(c: Context, series: string) {
    const token = tokenOf(c);
    const stepped = store.forSeries(series);
    const visible = new Set<string>();
    for (const env of new Set(stepped.map((r) => r.result.env.name))) if (await registries.packument(env, token)) visible.add(env);
    const results = stepped.filter((r) => visible.has(r.result.env.name));
    const envs = seriesEnvs(results);
    if (envs.length === 0) throw new HttpError(404, "NOT_FOUND", `no stepped results for series ${series}`);
    const train = c.req.query("train") ?? envs[0];
    const asked = c.req.queries("heldout");
    const heldOut = (asked ?? envs.filter((e) => e !== train)).filter((e) => visible.has(e));
    return { curves: curvesOf(series, results, train, heldOut), envs, heldOut };
  }

  app.post("/api/results", async (c) => {
    const { token, user } = await writer(c, "pushing results");
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      throw new HttpError(400, "INVALID_JSON", "the body is not JSON");
    }
    const parsed = HubResultSchema.safeParse(body);
    if (!parsed.success) {
      const issues = issueLines(parsed.error, { root: "(root)", max: 5 });
      throw new HttpError(422, "INVALID_REQUEST", `not a hub result: ${issues.join("; ")}`);
    }
    const result = parsed.data;
    const problems = inconsistencies(result);
    if (problems.length) throw new HttpError(422, "INVALID_REQUEST", `the result's numbers disagree: ${problems.slice(0, 5).join("; ")}`);
    const { name, version, integrity } = result.env;
    const doc = await registries.packument(name, token);
    const published = doc && versionDoc(doc, version);
    if (!published) throw new HttpError(422, "UNKNOWN_VERSION", `${name}@${version} is not published on this hub's registries (or not visible to your token)`);
    if (!integrity) throw new HttpError(422, "INVALID_REQUEST", `${name}@${version}: the result names no env.integrity; a published version's results must carry the tarball's hash`);
    if (integrity !== published.dist.integrity) {
      throw new HttpError(409, "INTEGRITY_MISMATCH", `${name}@${version}: the result was measured on different bytes (integrity ${integrity}) than the registry publishes (${published.dist.integrity ?? "none"})`);
    }
    const stored = store.add(result, user);
    return c.json({ id: stored.id, url: `/envs/${name}?version=${encodeURIComponent(version)}` }, 201);
  });

  app.post("/api/evals", async (c) => {
    if (!options.evals) throw new HttpError(404, "NOT_FOUND", "this hub has no models configured (hub serve --models models.yaml)");
    const { token, user } = await writer(c, "starting an eval");
    const body = (await c.req.json().catch(() => undefined)) as { env?: unknown; version?: unknown; models?: unknown } | undefined;
    if (!body || typeof body.env !== "string" || typeof body.version !== "string" || !Array.isArray(body.models) || !body.models.every((m) => typeof m === "string")) {
      throw new HttpError(422, "INVALID_REQUEST", 'expected {"env": "<name>", "version": "<version>", "models": ["<name from models.yaml>", …]}');
    }
    const unknown = (body.models as string[]).filter((m) => !options.evals!.models.includes(m));
    if (unknown.length || body.models.length === 0) throw new HttpError(422, "INVALID_REQUEST", `models must be some of ${options.evals.models.join(", ")}${unknown.length ? `; unknown: ${unknown.join(", ")}` : ""}`);
    const doc = await registries.packument(body.env, token);
    const published = doc && versionDoc(doc, body.version);
    if (!published) throw new HttpError(422, "UNKNOWN_VERSION", `${body.env}@${body.version} is not published (or not visible to your token)`);
    const busy = options.evals.busy({ env: body.env, version: body.version });
    if (busy) throw new HttpError(409, "EVAL_BUSY", busy);
    const id = await options.evals.start({ env: body.env, version: body.version, integrity: published.dist.integrity, models: body.models as string[], registry: doc!.registry, user });
    return c.json({ id, progress: `/api/evals/${id}` }, 202);
  });
  // An eval's progress is its environment's data: shown to whom the registry shows the package (a
  // public one to anyone, a private one to a token that may read it), else the same 404 as an
  // unknown id, so a private eval's id is no key to it and its existence does not show.
  app.get("/api/evals/:id", async (c) => {
    const id = c.req.param("id");
    const progress = options.evals?.progress(id);
    if (!progress || !(await registries.packument(progress.env, tokenOf(c)))) throw new HttpError(404, "NOT_FOUND", `no eval ${id} (or the registry does not show its environment to you: private packages need a token)`);
    return c.json(progress);
  });

  return app;
}
