/**
 * Names that come from visitors and pushed results, read as keys: a model or criterion id
 * `__proto__` once reached `Object.prototype` on the first view of a page (and then every route
 * answered 500, again after a restart, since the result is stored); a version `constructor` found
 * what every object inherits and crashed the route. Through the app as `hub serve` runs it, over an
 * in-memory registry publishing demo-env@1.0.0.
 */
import { afterEach, describe, expect, it } from "vitest";
import { RESERVED_NAMES } from "../../src/hub/results.js";
import { DEMO_INTEGRITY, demoHub, hubResult } from "./fixtures.js";

/** Object.prototype as the test file found it. */
const pristine = Object.getOwnPropertyDescriptors(Object.prototype);

/** Puts back what a test changed on Object.prototype, so one failing (on code that pollutes it) does not take the next ones down. */
function restorePrototype(): void {
  for (const key of Reflect.ownKeys(Object.prototype)) if (!Object.hasOwn(pristine, key)) delete (Object.prototype as Record<PropertyKey, unknown>)[key];
  Object.defineProperties(Object.prototype, pristine);
}

function expectPrototypeUntouched(): void {
  expect(Reflect.ownKeys(Object.prototype)).toEqual(Reflect.ownKeys(pristine));
  expect(Object.getOwnPropertyDescriptors(Object.prototype)).toEqual(pristine);
}

/** A result on demo-env@1.0.0 whose numbers agree (two tasks, one passed). */
const result = (model: string, criterion = "correct", version = "1.0.0") =>
  hubResult({ name: "demo-env", version, integrity: DEMO_INTEGRITY, model, perTask: { t1: 1, t2: 0 }, criteria: [{ id: criterion, rate: 0.5 }] });

const INHERITED = ["constructor", "__proto__", "toString", "hasOwnProperty"];

afterEach(restorePrototype);

describe("hub serve: names from results and visitors are data, never keys of Object.prototype", () => {
  it("refuses a result whose model or criterion id is __proto__, constructor or prototype (422), and stores nothing", async () => {
    const { app, store } = demoHub();
    const push = (body: unknown) => app.request("/api/results", { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer alice-token" }, body: JSON.stringify(body) });
    for (const name of RESERVED_NAMES) {
      for (const [body, field] of [[result(name), "model"], [result("isAdmin", name), "stats.criteria.0.id"]] as const) {
        const res = await push(body);
        expect(res.status).toBe(422);
        const { error } = (await res.json()) as { error: { code: string; message: string } };
        expect(error.code).toBe("INVALID_REQUEST");
        expect(error.message).toContain(`${field}: a reserved name`);
      }
    }
    expect(store.forEnv("demo-env")).toEqual([]);
    expect((await app.request("/api/envs/demo-env")).status).toBe(200);
    expectPrototypeUntouched();
  });

  it("shows results stored under such names (pushed before they were refused) without touching Object.prototype, and every route still answers", async () => {
    const { app, store, log } = demoHub();
    // What the audit pushed: each polluted Object.prototype on the first view of the environment.
    store.add(result("isAdmin", "__proto__"), "mallory");
    store.add(result("__proto__"), "mallory");
    store.add(result("constructor", "constructor"), "mallory");
    store.add(result("toString", "hasOwnProperty"), "mallory");

    const view = await app.request("/api/envs/demo-env");
    expect(view.status).toBe(200);
    expectPrototypeUntouched();
    const body = (await view.json()) as { rates: { criteria: string[]; rates: Record<string, Record<string, number>> }; history: { models: string[]; means: Record<string, Record<string, number>> } };
    // The names are there as the data they are.
    expect(body.rates.criteria).toEqual(expect.arrayContaining(["__proto__", "correct", "constructor", "hasOwnProperty"]));
    expect(Object.hasOwn(body.rates.rates, "__proto__")).toBe(true);
    expect(body.rates.rates["__proto__"].isAdmin).toBe(0.5);
    expect(body.rates.rates.correct["__proto__"]).toBe(0.5);
    expect(body.history.models).toEqual(["__proto__", "constructor", "isAdmin", "toString"]);
    expect(body.history.means["__proto__"]["1.0.0"]).toBe(0.5);

    for (const path of ["/envs/demo-env", "/api/envs/demo-env/history", "/api/envs/demo-env/1.0.0/results", "/api/envs/demo-env/1.0.0/compare?a=isAdmin&b=__proto__", "/api/envs", "/", "/login"]) {
      expect({ path, status: (await app.request(path)).status }).toEqual({ path, status: 200 });
    }
    expect(await (await app.request("/envs/demo-env")).text()).toContain("isAdmin");
    expectPrototypeUntouched();
    expect(log).toEqual([]);
  });

  it("a version named like an inherited property (constructor, __proto__, toString, hasOwnProperty) is not found on any route: 404 or 422, never 500", async () => {
    const evals = { models: ["mini"], busy: () => undefined, start: async () => "id-1", progress: () => undefined };
    const { app, log } = demoHub({ evals });
    const post = (path: string, body: unknown) => app.request(path, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer alice-token" }, body: JSON.stringify(body) });
    const codeOf = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;
    for (const version of INHERITED) {
      const q = encodeURIComponent(version);
      for (const path of [`/api/envs/demo-env?version=${q}`, `/api/envs/demo-env/${q}/results`, `/api/envs/demo-env/${q}/compare?a=x&b=y`]) {
        const res = await app.request(path);
        expect({ path, status: res.status }).toEqual({ path, status: 404 });
        expect(await codeOf(res)).toBe("UNKNOWN_VERSION");
      }
      const page = await app.request(`/envs/demo-env?version=${q}`);
      expect(page.status).toBe(404);
      expect(await page.text()).toContain(`demo-env has no version ${version}`);

      const pushed = await post("/api/results", result("model-a", "correct", version));
      expect({ version, status: pushed.status }).toEqual({ version, status: 422 });
      expect(await codeOf(pushed)).toBe("UNKNOWN_VERSION");
      const started = await post("/api/evals", { env: "demo-env", version, models: ["mini"] });
      expect({ version, status: started.status }).toEqual({ version, status: 422 });
      expect(await codeOf(started)).toBe("UNKNOWN_VERSION");
    }
    // The published version still works on the same routes.
    expect((await app.request("/api/envs/demo-env?version=1.0.0")).status).toBe(200);
    expect((await post("/api/results", result("model-a"))).status).toBe(201);
    expect((await post("/api/evals", { env: "demo-env", version: "1.0.0", models: ["mini"] })).status).toBe(202);
    expect(log).toEqual([]);
  });
});
