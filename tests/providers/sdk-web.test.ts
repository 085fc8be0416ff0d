import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { SdkFormData, SdkHeaders } from "../../src/providers/sdk-web.js";
import { ROOT } from "../helpers/cli.js";

type Op = ["append" | "set", string, string] | ["delete", string];

/** Scripts of header edits, each run on an undici `Headers` and an `SdkHeaders`: every read must agree. */
const scripts: { name: string; ops: Op[] }[] = [
  { name: "the SDK's own sequence (delete, then append, lower-case names)", ops: [["delete", "accept"], ["append", "accept", "application/json"], ["append", "user-agent", "OpenAI/JS 6"], ["delete", "x-stainless-retry-count"], ["append", "x-stainless-retry-count", "0"], ["append", "authorization", "Bearer k"]] },
  { name: "repeated names combine with a comma; set replaces", ops: [["append", "X-A", "1"], ["append", "x-a", "2"], ["set", "X-B", "3"], ["append", "x-b", "4"], ["set", "x-b", "5"]] },
  { name: "values lose whitespace at both ends, not inside", ops: [["append", "x-pad", " \t a  b \t "], ["set", "x-nl", "\n c\r\n"]] },
  { name: "set-cookie keeps each cookie apart in iteration", ops: [["append", "Set-Cookie", "a=1"], ["append", "set-cookie", "b=2"], ["append", "content-type", "text/plain"]] },
  { name: "delete of a cookie and of a missing name", ops: [["append", "set-cookie", "a=1"], ["delete", "Set-Cookie"], ["delete", "nothing-here"], ["set", "set-cookie", "c=3"]] },
];

function apply(h: { append(n: string, v: string): void; set(n: string, v: string): void; delete(n: string): void }, ops: Op[]): void {
  for (const op of ops) {
    if (op[0] === "delete") h.delete(op[1]);
    else h[op[0]](op[1], op[2]);
  }
}

describe("SdkHeaders", () => {
  it.each(scripts)("reads as undici's Headers does after the same edits: $name", ({ ops }) => {
    const real = new Headers();
    const light = new SdkHeaders();
    apply(real, ops);
    apply(light, ops);
    expect([...light]).toEqual([...real]);
    expect([...light.keys()]).toEqual([...real.keys()]);
    expect([...light.values()]).toEqual([...real.values()]);
    expect(light.getSetCookie()).toEqual(real.getSetCookie());
    for (const name of ["accept", "X-A", "x-b", "x-pad", "x-nl", "set-cookie", "SET-COOKIE", "nothing-here"]) {
      expect(light.get(name)).toBe(real.get(name));
      expect(light.has(name)).toBe(real.has(name));
    }
    const seen: string[] = [];
    light.forEach((v, k) => seen.push(`${k}=${v}`));
    expect(seen).toEqual([...real].map(([k, v]) => `${k}=${v}`));
  });

  it("is built from the same inits as Headers (pairs, a record, another Headers)", () => {
    const inits = [[["B", "2"], ["a", "1"], ["a", "3"]], { B: "2", a: "1" }, new Headers({ z: "9", y: "8" })] as NonNullable<RequestInit["headers"]>[];
    for (const init of inits) expect([...new SdkHeaders(init)]).toEqual([...new Headers(init)]);
    expect([...new SdkHeaders(new SdkHeaders({ q: "1" }))]).toEqual([["q", "1"]]);
  });

  it("refuses what fetch refuses: a name that is not a token, a value with CR, LF or NUL inside", () => {
    const light = new SdkHeaders();
    expect(() => light.append("bad name", "v")).toThrow(TypeError);
    expect(() => new Headers().append("bad name", "v")).toThrow(TypeError);
    for (const value of ["a\r\nx-injected: 1", "a\nb", "a\0b"]) {
      expect(() => light.set("x-v", value)).toThrow(TypeError);
      expect(() => new Headers().set("x-v", value)).toThrow(TypeError);
    }
    expect([...light]).toEqual([]);
  });

  it("is a Headers to `instanceof`, both ways it is asked (undici's Headers too); other objects are not", () => {
    expect(new SdkHeaders()).toBeInstanceOf(SdkHeaders);
    expect(new Headers()).toBeInstanceOf(SdkHeaders);
    expect({ get: () => null, forEach: () => {} }).not.toBeInstanceOf(SdkHeaders);
    expect(new Map()).not.toBeInstanceOf(SdkHeaders);
  });

  it("a fetch reads it as the headers it holds", async () => {
    const request = new Request("http://127.0.0.1/", { headers: new SdkHeaders({ "x-a": "1", Accept: "text/plain" }) as unknown as RequestInit["headers"] });
    expect([...request.headers]).toEqual([["accept", "text/plain"], ["x-a", "1"]]);
  });
});

describe("SdkFormData", () => {
  it("constructs the real FormData (uploads), and `instanceof` is true of a FormData only", () => {
    const form = new SdkFormData();
    expect(form).toBeInstanceOf(globalThis.FormData);
    form.append("purpose", "batch");
    expect(form.get("purpose")).toBe("batch");
    expect(new FormData()).toBeInstanceOf(SdkFormData);
    expect({ purpose: "batch" }).not.toBeInstanceOf(SdkFormData);
    expect(new URLSearchParams("a=1")).not.toBeInstanceOf(SdkFormData);
  });
});

describe("the built bundle's OpenAI calls", () => {
  const run = (env: NodeJS.ProcessEnv) =>
    JSON.parse(execFileSync(process.execPath, [join(ROOT, "tests/helpers/undici-loaded.mjs"), inject("rubricateDist")], { cwd: ROOT, encoding: "utf8", env: { ...process.env, RUBRICATE_HTTP: "", OPENAI_LOG: "", ...env }, timeout: 60_000 })) as { text: string; sdk: boolean; undici: boolean };

  it("answer without loading undici, without the SDK and through it (tsup.config.ts gives the SDK the stand-ins); through the global fetch, undici loads (the control)", () => {
    expect(run({})).toEqual({ text: "a fine answer", sdk: false, undici: false });
    expect(run({ OPENAI_LOG: "warn" })).toEqual({ text: "a fine answer", sdk: true, undici: false });
    expect(run({ RUBRICATE_HTTP: "fetch" })).toEqual({ text: "a fine answer", sdk: true, undici: true });
  });
});
