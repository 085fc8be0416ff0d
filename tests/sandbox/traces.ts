import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sandboxFoldersCreated } from "../../src/sandbox/bubblewrap/index.js";
import { cgroupParent, groupParents } from "../../src/sandbox/bubblewrap/cgroup.js";

/**
 * What this test process's sandboxes left on the host: their folders, mounts under them,
 * processes whose command line names them, and their cgroups (where sandboxes get them). Scoped to this process, so test files running in
 * parallel do not see each other's sandboxes.
 */
export function sandboxTraces(): { folders: string[]; mounts: string[]; processes: string[]; groups: string[] } {
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
  const parent = cgroupParent();
  const groups = "unavailable" in parent ? [] : groupParents(parent).flatMap((folder) => readdirSync(folder).filter((n) => n.startsWith(`rubricate-bwrap-${process.pid}-`)).map((n) => join(folder, n)));
  return { folders, mounts, processes, groups };
}
