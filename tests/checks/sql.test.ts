import fc from "fast-check";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { runCheck } from "../../src/checks/run.js";
import { extractSql, readOnlyProblem, sameResults, SQL_CHECK_NAME } from "../../src/checks/sql.js";
import type { Check } from "../../src/rubric/schema.js";

const rubricDir = resolve("rubrics");
const check: Check = { custom: SQL_CHECK_NAME, args: { database: "sql/shop.sql" } };
const REF = "SELECT name FROM customers WHERE country = 'UK'";

async function verdict(response: string, reference = REF, extra: Record<string, unknown> = {}) {
  const c: Check = { custom: SQL_CHECK_NAME, args: { database: "sql/shop.sql", ...extra } };
  return runCheck(c, { response, reference_sql: reference }, { rubricDir });
}

describe("extractSql / readOnlyProblem", () => {
  it("takes the last sql fence, drops comments and trailing semicolons", () => {
    expect(extractSql("Try this:\n```sql\nSELECT 1; -- one\n```\nor\n```sql\n/* two */ SELECT 2;;\n```")).toBe("SELECT 2");
    expect(extractSql("  select * from t;  ")).toBe("select * from t");
  });
  it("reads comments and trailing semicolons in linear time (the regexes it replaced were quadratic: 20,000 semicolons and an x took 1.6 s)", () => {
    // No clock: the former readings of these (200,000 each) would outlast the test's 60 s limit.
    expect(extractSql(`SELECT 1${";".repeat(200_000)}x`)).toBe(`SELECT 1${";".repeat(200_000)}x`);
    expect(extractSql(`SELECT 1 ${"/* ".repeat(200_000)}`)).toBe(`SELECT 1 ${"/* ".repeat(200_000)}`.trim());
    expect(extractSql(`SELECT 1${" ; ".repeat(200_000)}`)).toBe("SELECT 1");
  });
  it("reads comments and trailing semicolons as the regexes it replaced did, on random texts", () => {
    const former = (sql: string) => sql.replace(/--[^\n]*/g, " ").replace(/\/\*[\s\S]*?\*\//g, " ").trim().replace(/(;\s*)+$/, "").trim();
    fc.assert(
      fc.property(fc.array(fc.constantFrom("/*", "*/", "/", "*", ";", " ", "\n", "--", "a", "SELECT"), { maxLength: 30 }), (parts) => {
        const text = parts.join("");
        expect(extractSql(text)).toBe(former(text));
      }),
      { numRuns: 2000 },
    );
  });
  it.each([
    ["DELETE FROM customers", /single SELECT or WITH/],
    ["SELECT 1; DROP TABLE customers", /single statement/],
    ["ATTACH DATABASE '/etc/passwd' AS x", /single SELECT/],
    ["SELECT load_extension('x')", /keyword/],
    ["", /no SQL/],
  ])("rejects %s", (sql, why) => {
    expect(readOnlyProblem(sql)).toMatch(why);
  });
  it("allows a semicolon inside a string literal", () => {
    expect(readOnlyProblem("SELECT name FROM customers WHERE name = 'a;b'")).toBeUndefined();
  });
  it("compares result sets as multisets unless ordered", () => {
    expect(sameResults([[1], [2]], [[2], [1]], false)).toBe(true);
    expect(sameResults([[1], [2]], [[2], [1]], true)).toBe(false);
    expect(sameResults([[0.1 + 0.2]], [[0.3]], true)).toBe(true);
    expect(sameResults([[1], [1]], [[1]], false)).toBe(false);
  });
});

describe("sql-result-matches on rubrics/sql/shop.sql", () => {
  it("passes an equivalent query written differently (aliases, order, fences)", async () => {
    const v = await verdict("```sql\nSELECT c.name AS customer FROM customers AS c WHERE c.country IN ('UK') ORDER BY c.id DESC;\n```");
    expect(v).toMatchObject({ pass: true, source: "check" });
  });
  it("fails a query with different rows, or a different column count", async () => {
    expect((await verdict("SELECT name FROM customers WHERE country = 'US'")).pass).toBe(false);
    const cols = await verdict("SELECT name, email FROM customers WHERE country = 'UK'");
    expect(cols).toMatchObject({ pass: false, reasoning: expect.stringMatching(/column/) });
  });
  it("compares order when the reference has ORDER BY", async () => {
    const ref = "SELECT name FROM products ORDER BY price DESC";
    expect((await verdict("SELECT name FROM products ORDER BY price ASC", ref)).pass).toBe(false);
    expect((await verdict("SELECT name FROM products ORDER BY price ASC", ref, { order: "ignore" })).pass).toBe(true);
    expect((await verdict("SELECT p.name FROM products p ORDER BY p.price DESC", ref)).pass).toBe(true);
  });
  it("a write is a no, never executed; the database is fresh for every check", async () => {
    const w = await verdict("WITH x AS (SELECT 1) DELETE FROM customers");
    expect(w.pass).toBe(false);
    const v = await verdict("SELECT count(*) FROM customers", "SELECT 6");
    expect(v.pass).toBe(true);
  });
  it("a broken query is a no with the SQLite message", async () => {
    const v = await verdict("SELECT nme FROM customers");
    expect(v).toMatchObject({ pass: false, reasoning: expect.stringMatching(/no such column/) });
  });
  it("a runaway recursive query is stopped by the time limit", async () => {
    const v = await verdict("WITH c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c", REF, { timeout_ms: 500 });
    expect(v).toMatchObject({ pass: false, reasoning: expect.stringMatching(/timed out/), forfeit: true });
    // A query that is merely wrong is a plain no (a pitfall is not counted as hit for it).
    expect((await verdict("SELECT nope FROM nowhere", REF)).forfeit).toBeUndefined();
  });
  it("a query that runs the runner out of memory is a no, not an error that --errors skip-criterion would leave out", async () => {
    // 10,000 rows of 30,000 characters: past the runner's 256 MB heap, which kills it mid-query.
    const hog = "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r LIMIT 9999) SELECT printf('%.*c', 30000, 'x') FROM r";
    const v = await verdict(hog, REF, { timeout_ms: 30_000 });
    expect(v).toMatchObject({ pass: false, reasoning: expect.stringMatching(/the query failed: .*(out of memory|died)/), forfeit: true });
  });
  it("a broken reference or missing database is an error, not a no", async () => {
    await expect(verdict("SELECT 1", "SELECT nope FROM nowhere")).rejects.toMatchObject({ code: "CHECK_FAILED" });
    await expect(runCheck({ custom: SQL_CHECK_NAME, args: { database: "sql/missing.sql" } }, { response: "SELECT 1", reference_sql: "SELECT 1" }, { rubricDir })).rejects.toMatchObject({ code: "CHECK_FAILED" });
    await expect(runCheck(check, { response: "SELECT 1" }, { rubricDir })).rejects.toMatchObject({ code: "MISSING_INPUT" });
  });
});

describe("sql-result-matches on several databases (test-suite accuracy)", () => {
  const both = { database: ["sql/shop.sql", "sql/shop-b.sql"] };
  // Ada Lovelace and Alan Turing are shop.sql's UK customers.
  const pasted = "```sql\nSELECT 'Ada Lovelace' UNION ALL SELECT 'Alan Turing';\n```";
  // On shop.sql, the customers who signed up before April are... the UK ones and Grace Hopper: a wrong filter.
  const lucky = "SELECT name FROM customers WHERE email IN ('ada@example.org', 'alan@example.org')";

  it("a query that pastes the answer's rows, or selects them by luck, passes one database and fails two", async () => {
    for (const response of [pasted, lucky]) {
      expect(await verdict(response), response).toMatchObject({ pass: true });
      expect(await verdict(response, REF, both), response).toMatchObject({ pass: false, reasoning: "result differs from the reference (2 row(s), expected 3) on sql/shop-b.sql" });
    }
  });

  it("a query that computes its answer passes on every database, and the reason counts the rows of each", async () => {
    expect(await verdict("SELECT c.name FROM customers c WHERE c.country = 'UK'", REF, both)).toMatchObject({ pass: true, reasoning: "the same rows as the reference on each of 2 databases (2, 3 row(s))" });
  });

  it("a query that fails on the second database fails there, named; the first database that differs decides", async () => {
    expect(await verdict("SELECT name FROM customers WHERE id < 4 AND country = 'UK'", REF, both)).toMatchObject({ pass: false, reasoning: expect.stringMatching(/on sql\/shop-b\.sql$/) });
    expect(await verdict("SELECT name FROM customers", REF, both)).toMatchObject({ pass: false, reasoning: expect.stringMatching(/on sql\/shop\.sql$/) });
  });

  it("an empty list, or one that is not of paths, is the rubric's error", async () => {
    for (const database of [[], [1], "", null]) {
      await expect(verdict("SELECT 1", "SELECT 1", { database: database as never })).rejects.toMatchObject({ code: "CHECK_FAILED", message: expect.stringMatching(/args\.database/) });
    }
  });
});
