/**
 * `sql-result-matches`: a built-in custom check for SQL answers (Spider / BIRD execution
 * accuracy). It runs the response's query and the reference query against a small database
 * shipped with the rubric, loaded fresh into an in-memory SQLite database for every check, and
 * compares the result sets. Given several databases (one schema, other rows), the results must
 * match on each: test-suite accuracy (Zhong et al. 2020), which a query that hard-codes the
 * answer's rows (`SELECT 'Ada' UNION ALL SELECT 'Alan'`) or matches them by luck fails. Queries
 * must be one read-only SELECT / WITH statement; they run in a child process that is killed after
 * a time limit (a runaway recursive CTE cannot hang the scorer).
 *
 * rubric:  check: { custom: sql-result-matches, args: { database: [sql/shop.sql, sql/shop-b.sql], reference_field: reference_sql } }
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { isAbsolute, resolve } from "node:path";
import pLimit from "p-limit";
import { RubricateError } from "../errors.js";
import { withoutEnclosed } from "../text/markers.js";
import type { CheckContext, CheckOutcome } from "./types.js";

/** The name rubrics use for this built-in check. */
export const SQL_CHECK_NAME = "sql-result-matches";

/** The `args` of a `sql-result-matches` check. */
export interface SqlCheckArgs {
  /**
   * A `.sql` file (schema and rows) resolved against the rubric's folder, or a `.db`/`.sqlite` file
   * opened read-only; or a list of them, on each of which the results must match.
   */
  database: string | string[];
  /** The sample input holding the reference query (default "reference_sql"). */
  reference_field?: string;
  /** A fixed reference query instead of a sample input. */
  reference?: string;
  /** "auto" (default): row order matters only when the reference query has ORDER BY. */
  order?: "auto" | "strict" | "ignore";
  /** Wall-clock limit for both queries together, on each database (default 2000 ms). */
  timeout_ms?: number;
  /** Most rows a query may return (default 10000). */
  max_rows?: number;
}

/** The one SQL statement in a response: the last ```sql fenced block if any, else the whole text; comments and trailing semicolons removed. */
export function extractSql(text: string): string {
  const blocks = [...text.matchAll(/```(?:sql|sqlite|SQL)?[ \t]*\n([\s\S]*?)```/g)];
  const sql = blocks.length > 0 ? blocks[blocks.length - 1][1] : text;
  // Block comments found in one pass: a lazy `/\*[\s\S]*?\*\//` read to the end from every unclosed "/*".
  return withoutTrailingSemicolons(withoutEnclosed(sql.replace(/--[^\n]*/g, " "), "/*", "*/", " ").trim()).trim();
}

/** The text without the semicolons (and white space among them) it ends with, read from the end: `(;\s*)+$` tried every start in a long run of them. */
function withoutTrailingSemicolons(text: string): string {
  let end = text.length;
  while (end > 0 && (text[end - 1] === ";" || /\s/.test(text[end - 1]))) end--;
  return text.slice(0, end);
}

/** Why a query is not a single read-only SELECT / WITH statement, or undefined when it is one. */
export function readOnlyProblem(sql: string): string | undefined {
  if (sql === "") return "no SQL query found in the response";
  if (!/^(select|with)\b/i.test(sql)) return `only a single SELECT or WITH statement is allowed (the query starts with "${sql.split(/\s+/)[0]}")`;
  // Semicolons outside string literals mean a second statement.
  if (/;/.test(sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"/g, ""))) return "only a single statement is allowed";
  if (/\b(attach|detach|pragma|vacuum|load_extension)\b/i.test(sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"/g, ""))) {
    return "the query contains a statement keyword that can write or reach outside the database";
  }
  return undefined;
}

type Row = unknown[];
interface RunnerResult {
  ok: boolean;
  which?: "candidate" | "reference" | "database";
  error?: string;
  /** The candidate's query ran past the time limit or killed the runner: it could not be answered (see `CheckResult.forfeit`). */
  forfeit?: boolean;
  candidate?: { columns: string[]; rows: Row[] };
  reference?: { columns: string[]; rows: Row[] };
}

/**
 * What the runner writes to stderr once the reference has run and the candidate's query starts. A
 * runner that dies after it (out of memory on rows the query built) was killed by the candidate:
 * a no, like a timeout. Before it, the death is the rubric's or the machine's: an error. Else a
 * query crafted to crash the runner would turn its criterion into an error, which
 * `--errors skip-criterion` leaves out of the reward.
 */
const CANDIDATE_RUNS = "rubricate-sql: the candidate's query runs\n";

// Runs in a child process: loads the database into :memory: (or opens a file read-only), checks
// each query is read-only with SQLite's own flags, and prints the rows as JSON.
const RUNNER = `
const job = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
const Database = require(job.driver);
const out = (v) => process.stdout.write(JSON.stringify(v, (k, x) => (typeof x === "bigint" ? Number(x) : Buffer.isBuffer(x) ? x.toString("hex") : x)));
let db;
try {
  db = job.file ? new Database(job.file, { readonly: true, fileMustExist: true }) : new Database(":memory:");
  if (job.script) db.exec(job.script);
  db.pragma("query_only = ON");
} catch (e) { out({ ok: false, which: "database", error: e.message }); process.exit(0); }
const run = (sql, which) => {
  const st = db.prepare(sql);
  if (!st.reader || !st.readonly) throw Object.assign(new Error("not a read-only query"), { which });
  const rows = [];
  for (const r of st.raw(true).iterate()) { rows.push(r); if (rows.length > job.maxRows) throw Object.assign(new Error("more than " + job.maxRows + " rows"), { which }); }
  return { columns: st.columns().map((c) => c.name), rows };
};
let which = "reference";
try { const reference = run(job.reference, "reference"); which = "candidate"; process.stderr.write(${JSON.stringify(CANDIDATE_RUNS)}); const candidate = run(job.candidate, "candidate"); out({ ok: true, reference, candidate }); }
catch (e) { out({ ok: false, which: e.which || which, error: e.message }); }
`;

const limit = pLimit(Math.max(2, availableParallelism()));
const scripts = new Map<string, string>();
let driverPath: string | undefined;

function loadScript(path: string): string {
  let script = scripts.get(path);
  if (script === undefined) {
    try {
      script = readFileSync(path, "utf8");
    } catch (e) {
      throw new RubricateError("CHECK_FAILED", `${SQL_CHECK_NAME}: cannot read database script ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    scripts.set(path, script);
  }
  return script;
}

function runQueries(job: Record<string, unknown>, timeoutMs: number): Promise<RunnerResult> {
  // Both load with the first SQL check, not with every `import "rubricate"`.
  const requireHere = createRequire(import.meta.url);
  driverPath ??= requireHere.resolve("better-sqlite3");
  const { spawn } = requireHere("node:child_process") as typeof import("node:child_process");
  return limit(
    () =>
      new Promise<RunnerResult>((resolvePromise, reject) => {
        const child = spawn(process.execPath, ["--max-old-space-size=256", "-e", RUNNER], { stdio: ["pipe", "pipe", "pipe"], env: {} });
        let stdout = "";
        let stderr = "";
        let timedOut = false;
        const timer = setTimeout(() => {
          timedOut = true;
          child.kill("SIGKILL");
        }, timeoutMs);
        child.stdout.on("data", (d: Buffer) => (stdout += d));
        child.stderr.on("data", (d: Buffer) => (stderr += d));
        child.on("error", (e) => {
          clearTimeout(timer);
          reject(new RubricateError("CHECK_FAILED", `${SQL_CHECK_NAME}: cannot start the query runner: ${e.message}`));
        });
        child.on("close", (code, signal) => {
          clearTimeout(timer);
          if (timedOut) return resolvePromise({ ok: false, which: "candidate", error: `timed out after ${timeoutMs} ms`, forfeit: true });
          try {
            resolvePromise(JSON.parse(stdout) as RunnerResult);
          } catch {
            if (stderr.includes(CANDIDATE_RUNS)) return resolvePromise({ ok: false, which: "candidate", error: runnerDeath(stderr, code, signal), forfeit: true });
            reject(new RubricateError("CHECK_FAILED", `${SQL_CHECK_NAME}: the query runner failed: ${stderr.trim().split("\n").slice(-1)[0] || "no output"}`));
          }
        });
        child.stdin.end(JSON.stringify({ ...job, driver: driverPath }));
      }),
  );
}

/** Why the runner died while the candidate's query ran, in words (V8's crash report ends in stack frames). */
function runnerDeath(stderr: string, code: number | null, signal: NodeJS.Signals | null): string {
  const how = signal ? `signal ${signal}` : `exit code ${code}`;
  return /heap limit|out of memory/i.test(stderr) ? `it ran the query runner out of memory (${how})` : `the query runner died while it ran (${how})`;
}

/** A canonical form of one cell: numbers rounded to 6 decimals so 0.1+0.2 equals 0.3; null stays null. */
function cell(value: unknown): unknown {
  if (typeof value === "number") return Number.isInteger(value) ? value : Math.round(value * 1e6) / 1e6;
  return value;
}

/** True when two result sets hold the same rows (column names ignored; order per `ordered`). */
export function sameResults(a: Row[], b: Row[], ordered: boolean): boolean {
  if (a.length !== b.length) return false;
  const keys = (rows: Row[]) => rows.map((r) => JSON.stringify(r.map(cell)));
  const x = keys(a);
  const y = keys(b);
  if (!ordered) {
    x.sort();
    y.sort();
  }
  return x.every((k, i) => k === y[i]);
}

/**
 * The check function behind `sql-result-matches`.
 * @example await sqlResultMatches("SELECT 1", { sample: {}, args: { database: "shop.sql", reference: "SELECT 1" } })
 */
export async function sqlResultMatches(text: string, context: CheckContext): Promise<CheckOutcome> {
  const args = context.args as Partial<SqlCheckArgs>;
  const databases = databasesOf(args.database);
  const referenceField = args.reference_field ?? "reference_sql";
  const referenceRaw = args.reference ?? context.sample[referenceField];
  if (typeof referenceRaw !== "string") throw new RubricateError("MISSING_INPUT", `${SQL_CHECK_NAME}: the sample has no "${referenceField}" input with the reference query`);
  const reference = extractSql(referenceRaw);
  const candidate = extractSql(text);
  const refProblem = readOnlyProblem(reference);
  if (refProblem) throw new RubricateError("CHECK_FAILED", `${SQL_CHECK_NAME}: the reference query is invalid: ${refProblem}`);
  const problem = readOnlyProblem(candidate);
  if (problem) return { pass: false, reasoning: `rejected: ${problem}` };
  const order = args.order ?? "auto";
  const ordered = order === "strict" || (order === "auto" && /\border\s+by\b/i.test(reference));
  const matched: number[] = [];
  // One database after another: the first the results differ on decides, and the rest need not run.
  for (const database of databases) {
    const path = isAbsolute(database) ? database : resolve(context.rubricDir ?? process.cwd(), database);
    const outcome = await compareOn(path, reference, candidate, ordered, args);
    const where = databases.length > 1 ? ` on ${database}` : "";
    if ("pass" in outcome) return { ...outcome, reasoning: `${outcome.reasoning}${where}` };
    matched.push(outcome.rows);
  }
  const rows = databases.length > 1 ? `the same rows as the reference on each of ${databases.length} databases (${matched.join(", ")} row(s))` : `same ${matched[0]} row(s) as the reference`;
  return { pass: true, reasoning: `${rows}${ordered ? " in the same order" : ""}` };
}

/** The databases a check's `args.database` names: one path or a non-empty list of them. */
function databasesOf(database: unknown): string[] {
  const isPath = (d: unknown): d is string => typeof d === "string" && d !== "";
  if (isPath(database)) return [database];
  if (Array.isArray(database) && database.length > 0 && database.every(isPath)) return database;
  throw new RubricateError("CHECK_FAILED", `${SQL_CHECK_NAME}: args.database (a .sql or .sqlite file beside the rubric, or a list of them) is required`);
}

/** Both queries on one database: the rows they agree on, or the failing outcome (the candidate's fault) to return. */
async function compareOn(path: string, reference: string, candidate: string, ordered: boolean, args: Partial<SqlCheckArgs>): Promise<{ rows: number } | { pass: false; reasoning: string; forfeit?: boolean }> {
  const isFile = /\.(db|sqlite3?)$/i.test(path);
  const result = await runQueries(
    { file: isFile ? path : undefined, script: isFile ? undefined : loadScript(path), reference, candidate, maxRows: args.max_rows ?? 10_000 },
    args.timeout_ms ?? 2000,
  );
  if (!result.ok) {
    if (result.which === "candidate") return { pass: false, reasoning: `the query failed: ${result.error}`, ...(result.forfeit ? { forfeit: true } : {}) };
    throw new RubricateError("CHECK_FAILED", `${SQL_CHECK_NAME}: the ${result.which} failed: ${result.error}`);
  }
  const ref = result.reference!;
  const got = result.candidate!;
  if (ref.columns.length !== got.columns.length) return { pass: false, reasoning: `${got.columns.length} column(s), expected ${ref.columns.length}` };
  if (!sameResults(got.rows, ref.rows, ordered)) return { pass: false, reasoning: `result differs from the reference (${got.rows.length} row(s), expected ${ref.rows.length}${ordered ? ", order compared" : ""})` };
  return { rows: ref.rows.length };
}
