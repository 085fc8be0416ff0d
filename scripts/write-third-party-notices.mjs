// Writes dist/THIRD_PARTY_NOTICES.md: the name, version, licence and licence text of every npm
// package esbuild bundled into dist/ (tsup.config.ts's noExternal). Bundling copies their code into
// the published tarball, and their licences (MIT, ISC, Apache-2.0, …) ask that their notices travel
// with it. The list is read off the built chunks (esbuild's `// node_modules/<package>/…` comment
// before each bundled module), so a package bundled later is listed without editing this file; one
// with no licence to cite fails the build.
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const LICENCE_FILE = /^(?:licen[cs]e|copying|notice)(?:[-.].*)?$/i;

/** The built JavaScript files of a dist folder, recursively. */
function builtFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return builtFiles(path);
    return /\.(?:c|m)?js$/.test(e.name) ? [path] : [];
  });
}

/**
 * The folders (relative to the project root) of the packages bundled into `dist`, by the path
 * comments esbuild leaves: the innermost `node_modules/<package>` of each, so a nested copy counts as itself.
 */
export function bundledPackageDirs(dist = join(ROOT, "dist")) {
  const dirs = new Set();
  for (const file of builtFiles(dist)) {
    for (const [, path] of readFileSync(file, "utf8").matchAll(/^\/\/ (node_modules\/\S+)$/gm)) {
      const at = path.lastIndexOf("node_modules/") + "node_modules/".length;
      const name = /^(?:@[^/]+\/)?[^/]+/.exec(path.slice(at))?.[0];
      if (name) dirs.add(path.slice(0, at) + name);
    }
  }
  return [...dirs].sort();
}

/** One bundled package's notice: its name, version, declared licence and licence files' texts. */
export function noticeOf(dir) {
  const pkg = JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8"));
  const files = readdirSync(join(ROOT, dir)).filter((f) => LICENCE_FILE.test(f)).sort();
  const texts = files.map((f) => ({ file: f, text: readFileSync(join(ROOT, dir, f), "utf8").trim() }));
  const license = typeof pkg.license === "string" ? pkg.license : undefined;
  if (!license && texts.length === 0) throw new Error(`${dir}: bundled into dist/ but declares no licence and ships no licence file`);
  return { name: pkg.name, version: pkg.version, license: license ?? "see the licence text", texts };
}

/** The notices file's markdown for the given notices. */
export function renderNotices(notices) {
  const head = [
    "# Third-party notices",
    "",
    "rubricate's dist/ bundles the code of the npm packages below (one file each loads faster than",
    "hundreds). Each keeps its own licence, reproduced here as the package ships it.",
    "",
  ];
  const sections = notices.map((n) => {
    const body = n.texts.length > 0
      ? n.texts.map((t) => `${n.texts.length > 1 ? `${t.file}:\n\n` : ""}\`\`\`text\n${t.text}\n\`\`\``).join("\n\n")
      : `The package ships no licence file; its package.json declares ${n.license}.`;
    return `## ${n.name} ${n.version}\n\nLicence: ${n.license}\n\n${body}\n`;
  });
  return `${head.join("\n")}\n${sections.join("\n")}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dist = join(ROOT, "dist");
  if (!existsSync(dist)) throw new Error("dist/ is not built: run tsup first");
  const notices = bundledPackageDirs(dist).map(noticeOf);
  writeFileSync(join(dist, "THIRD_PARTY_NOTICES.md"), renderNotices(notices));
  process.stdout.write(`${relative(ROOT, join(dist, "THIRD_PARTY_NOTICES.md"))}: ${notices.length} bundled packages\n`);
}
