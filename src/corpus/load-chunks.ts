/**
 * TEMPORARY: the documents `env synth --docs` reads until the corpus readers land (h35search's
 * `readDocuments` and `chunkDocuments` in src/corpus/index.ts, which read HTML and PDF too). At
 * the merge, `loadChunks` becomes `chunkDocuments(await readDocuments(folder))` and this file goes.
 */
import { readdirSync, readFileSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import { RubricateError } from "../errors.js";
import type { Chunk } from "./types.js";

/** Characters a chunk grows to before a paragraph break ends it. */
const CHUNK_CHARS = 1200;

/**
 * The .md and .txt files under a folder cut into chunks at paragraph breaks, ids `<path>#<n>`.
 * @example const chunks = loadChunks("docs/") // [{ id: "hr/vacation.md#0", doc: "hr/vacation.md", … }]
 */
export function loadChunks(folder: string): Chunk[] {
  let files: string[];
  try {
    files = readdirSync(folder, { recursive: true, encoding: "utf8" }).filter((f) => [".md", ".txt"].includes(extname(f).toLowerCase())).sort();
  } catch (e) {
    throw new RubricateError("FILE_NOT_FOUND", `cannot read the documents folder ${folder}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return files.flatMap((file) => {
    const doc = relative(folder, join(folder, file)).split(sep).join("/");
    const text = readFileSync(join(folder, file), "utf8");
    const title = /^#\s+(.+)$/m.exec(text)?.[1].trim() ?? doc.replace(/\.[^.]+$/, "");
    const pieces: string[] = [];
    let current = "";
    for (const paragraph of text.split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean)) {
      if (current && current.length + paragraph.length > CHUNK_CHARS) {
        pieces.push(current);
        current = "";
      }
      current = current ? `${current}\n\n${paragraph}` : paragraph;
    }
    if (current) pieces.push(current);
    return pieces.map((piece, n) => ({ id: `${doc}#${n}`, doc, title, text: piece }));
  });
}
