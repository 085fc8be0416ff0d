/**
 * Preloaded into a CLI run (`--import`) to fill the disk: after `RUBRICATE_FAULT_WRITES_OK`
 * answers are stored, every further insert into the cache fails as SQLite fails on a full disk
 * (SQLITE_FULL, "database or disk is full"). Patches better-sqlite3 in this process only.
 */
import Database from "better-sqlite3";

const allowed = Number(process.env.RUBRICATE_FAULT_WRITES_OK ?? "0");
let writes = 0;
const prepare = Database.prototype.prepare;
Database.prototype.prepare = function (this: Database.Database, source: string) {
  const statement = prepare.call(this, source);
  if (!/INSERT OR IGNORE INTO responses/i.test(source)) return statement;
  const run = statement.run.bind(statement);
  statement.run = ((...params: unknown[]) => {
    if (++writes > allowed) throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
    return (run as (...p: unknown[]) => Database.RunResult)(...params);
  }) as typeof statement.run;
  return statement;
} as typeof prepare;
