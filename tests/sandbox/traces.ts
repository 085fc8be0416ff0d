import { existsSync, readdirSync, readFileSync } from "node:fs";
import { sandboxFoldersCreated } from "../../src/sandbox/bubblewrap/index.js";

/**
 * What this test process's sandboxes left on the host: their folders, mounts under them, and
 * processes whose command line names them. Scoped to this process, so test files running in
 * parallel do not see each other's sandboxes.
 */
export function sandboxTraces(): { folders: string[]; mounts: string[]; processes: string[] } {
  const dirs = sandboxFoldersCreated();
  const mine = (text: string) => dirs.some((d) => text.includes(`${d}/`) || text.endsWith(d));
  const folders = dirs.filter((d) => existsSync(d));
  const mounts = readFileSync("/proc/self/mounts", "utf8")
    .split("\n")
    .filter((l) => mine(l.split(" ")[1] ?? ""));
  const processes = readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return mine(readFileSync(`/proc/${p}/cmdline`, "utf8").replaceAll("\0", " "));
      } catch {
        return false;
      }
    });
  return { folders, mounts, processes };
}
