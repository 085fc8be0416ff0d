import Database from "better-sqlite3";

/** Rows in a cache file's `responses` table: how many paid answers it holds. */
export function cacheRows(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM responses").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** `PRAGMA integrity_check` of a cache file ("ok" when sound). */
export function integrity(path: string): string {
  // Read-only, so the check never changes the file it judges (some scenarios make it unwritable).
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check;
  } finally {
    db.close();
  }
}
