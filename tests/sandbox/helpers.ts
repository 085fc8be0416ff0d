import { needs, runs, which } from "../helpers/system.js";

/** bubblewrap present and able to make namespaces here (skips locally, fails under CI=true). */
export const needsBubblewrap = () =>
  needs("bubblewrap", () => runs("bwrap", ["--unshare-all", "--die-with-parent", "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "/usr/bin/true"]) && which("bwrap"), "apt-get install bubblewrap");

/** Debian's python3 (stdlib only) inside the sandbox: /usr/bin/python3. */
export const needsPython = () => needs("python3", () => runs("/usr/bin/python3", ["-c", "import sqlite3"]) && "/usr/bin/python3", "apt-get install python3");
