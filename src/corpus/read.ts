/**
 * Reading a folder of documents: one reader per format, each turning a file's bytes into a title
 * and plain text. Markdown and text are read as UTF-8 (invalid bytes are an error, not mojibake),
 * HTML through html-to-text (headings kept as `#` lines so chunking can cut at them), PDF through
 * unpdf (pdf.js bundled for servers, no native code).
 */
import { readFile, readdir, stat } from "node:fs/promises";
import { basename, extname, join, relative, sep } from "node:path";
import { RubricateError } from "../errors.js";
import { detectLanguage } from "./language.js";
import type { SourceDocument } from "./types.js";

/** What a reader gets out of one file; the title falls back to the file name. */
interface ReadText {
  title?: string;
  text: string;
}

type Reader = (bytes: Buffer) => Promise<ReadText>;

const utf8 = new TextDecoder("utf-8", { fatal: true });

function decodeUtf8(bytes: Buffer): string {
  try {
    return utf8.decode(bytes).replace(/^\uFEFF/, "");
  } catch {
    throw new Error("not UTF-8 text");
  }
}

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---\r?\n/;

async function readMarkdown(bytes: Buffer): Promise<ReadText> {
  const raw = decodeUtf8(bytes);
  const front = FRONT_MATTER.exec(raw);
  const text = front ? raw.slice(front[0].length) : raw;
  const frontTitle = front ? /^title:\s*["']?(.*?)["']?\s*$/m.exec(front[1])?.[1] : undefined;
  return { title: frontTitle || /^#\s+(.+?)\s*#*\s*$/m.exec(text)?.[1], text: text.trim() };
}

async function readPlainText(bytes: Buffer): Promise<ReadText> {
  const text = decodeUtf8(bytes).trim();
  return { title: text.split("\n", 1)[0]?.trim(), text };
}

async function readHtml(bytes: Buffer): Promise<ReadText> {
  const { convert } = await import("html-to-text");
  const html = decodeUtf8(bytes);
  const headings = [1, 2, 3, 4, 5, 6].map((level) => ({ selector: `h${level}`, format: "markdownHeading", options: { level } }));
  const text = convert(html, {
    wordwrap: false,
    formatters: {
      // Headings as Markdown lines: the chunker cuts sections at them, as it does for .md files.
      markdownHeading: (elem, walk, builder, options) => {
        builder.openBlock({ leadingLineBreaks: 2 });
        builder.addInline(`${"#".repeat(Number(options.level ?? 1))} `);
        walk(elem.children, builder);
        builder.closeBlock({ trailingLineBreaks: 2 });
      },
    },
    selectors: [...headings, { selector: "a", options: { ignoreHref: true } }, { selector: "img", format: "skip" }],
  }).trim();
  const titleTag = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const title = (titleTag && convert(titleTag, { wordwrap: false }).trim()) || /^#\s+(.+)$/m.exec(text)?.[1];
  return { title, text };
}

async function readPdf(bytes: Buffer): Promise<ReadText> {
  const { extractText, getDocumentProxy, getMeta } = await import("unpdf");
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  try {
    const { info } = await getMeta(pdf);
    const { text: pages } = await extractText(pdf, { mergePages: false });
    const text = pages.map((p) => p.trim()).filter(Boolean).join("\n\n");
    const title = typeof info?.Title === "string" && info.Title.trim() ? info.Title.trim() : text.split("\n", 1)[0]?.trim();
    return { title, text };
  } finally {
    await pdf.destroy();
  }
}

/** The readers by file extension (lower case); other files in the folder are not documents. */
const READERS: Record<string, Reader> = {
  ".md": readMarkdown,
  ".markdown": readMarkdown,
  ".txt": readPlainText,
  ".html": readHtml,
  ".htm": readHtml,
  ".pdf": readPdf,
};

/** The extensions `readDocuments` reads. */
export const DOCUMENT_EXTENSIONS: readonly string[] = Object.keys(READERS);

/** Files under `folder` (recursively, hidden files and folders skipped), sorted by relative path. */
async function documentFiles(folder: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(dir: string) {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.name.startsWith(".")) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && READERS[extname(entry.name).toLowerCase()]) out.push(path);
    }
  }
  await walk(folder);
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Reads one document; a file that cannot be read is an error naming it. */
export async function readDocument(folder: string, path: string): Promise<SourceDocument> {
  const id = relative(folder, path).split(sep).join("/");
  const reader = READERS[extname(path).toLowerCase()];
  if (!reader) throw new RubricateError("BAD_INPUT", `${path}: not a document (readable: ${DOCUMENT_EXTENSIONS.join(", ")})`);
  let read: ReadText;
  try {
    read = await reader(await readFile(path));
  } catch (e) {
    throw new RubricateError("BAD_INPUT", `${path}: cannot read ${extname(path).slice(1).toUpperCase()}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  const lang = detectLanguage(read.text);
  return { id, title: read.title || basename(path, extname(path)), text: read.text, ...(lang ? { lang } : {}) };
}

/**
 * Every document under `folder` (Markdown, text, HTML, PDF; other files are ignored), sorted by
 * path. A missing folder, a folder without documents, or a file that cannot be read is an error
 * naming the folder or the file.
 */
export async function readDocuments(folder: string): Promise<SourceDocument[]> {
  const info = await stat(folder).catch(() => undefined);
  if (!info?.isDirectory()) throw new RubricateError("FILE_NOT_FOUND", `${folder}: no such folder of documents`);
  const files = await documentFiles(folder);
  if (files.length === 0) throw new RubricateError("BAD_INPUT", `${folder}: no documents (readable: ${DOCUMENT_EXTENSIONS.join(", ")})`);
  const docs: SourceDocument[] = [];
  for (const file of files) docs.push(await readDocument(folder, file));
  return docs;
}
