/**
 * Cutting documents into chunks a search tool returns and a task cites. A chunk is a section (the
 * text under a heading) or, when a section is longer than the size cap, consecutive paragraphs of
 * it; a paragraph longer than the cap is cut at sentence ends. The cut depends only on the
 * document's text, so its ids (`<document id>#<n>`) stay the same while the text does.
 */
import type { Chunk, SourceDocument } from "./types.js";

/** How documents are cut. */
export interface ChunkOptions {
  /** The most characters in one chunk (a single word longer than this is cut); default 1500. */
  maxChars?: number;
}

const DEFAULT_MAX_CHARS = 1500;
const HEADING = /^#{1,6}\s+(.+?)\s*#*\s*$/;

interface Section {
  heading?: string;
  blocks: string[];
}

/** Paragraphs (blank-line separated) grouped under the Markdown heading before them. */
function sectionsOf(text: string): Section[] {
  const sections: Section[] = [{ blocks: [] }];
  for (const para of text.replace(/\r\n?/g, "\n").split(/\n\s*\n/)) {
    const lines = para.split("\n");
    let body: string[] = [];
    const flush = () => {
      const block = body.join("\n").trim();
      if (block) sections[sections.length - 1].blocks.push(block);
      body = [];
    };
    for (const line of lines) {
      const heading = HEADING.exec(line);
      if (!heading) {
        body.push(line);
        continue;
      }
      flush();
      const current = sections[sections.length - 1];
      // A heading right under another (a title, then a section) joins it rather than making an empty chunk.
      if (current.blocks.every((b) => HEADING.test(b))) current.heading = heading[1];
      else sections.push({ heading: heading[1], blocks: [] });
      sections[sections.length - 1].blocks.push(line.trim());
    }
    flush();
  }
  return sections.filter((s) => s.blocks.length > 0);
}

/** `block` cut into pieces of at most `max` characters: at sentence ends, else at spaces, else anywhere. */
function splitBlock(block: string, max: number): string[] {
  if (block.length <= max) return [block];
  const pieces: string[] = [];
  let current = "";
  for (const sentence of block.split(/(?<=[.!?。])\s+/u)) {
    const parts = sentence.length <= max ? [sentence] : splitWords(sentence, max);
    for (const part of parts) {
      if (current && current.length + 1 + part.length > max) {
        pieces.push(current);
        current = "";
      }
      current = current ? `${current} ${part}` : part;
    }
  }
  if (current) pieces.push(current);
  return pieces;
}

function splitWords(sentence: string, max: number): string[] {
  const pieces: string[] = [];
  let current = "";
  for (let word of sentence.split(/\s+/)) {
    while (word.length > max) {
      if (current) pieces.push(current), (current = "");
      pieces.push(word.slice(0, max));
      word = word.slice(max);
    }
    if (current && current.length + 1 + word.length > max) pieces.push(current), (current = "");
    current = current ? `${current} ${word}` : word;
  }
  if (current) pieces.push(current);
  return pieces;
}

/** One document's chunks, in reading order. */
export function chunkDocument(doc: SourceDocument, options: ChunkOptions = {}): Chunk[] {
  const max = options.maxChars ?? DEFAULT_MAX_CHARS;
  if (!Number.isInteger(max) || max < 1) throw new TypeError(`maxChars must be a positive integer, got ${max}`);
  const texts: { heading?: string; text: string }[] = [];
  for (const section of sectionsOf(doc.text)) {
    let current = "";
    for (const piece of section.blocks.flatMap((b) => splitBlock(b, max))) {
      if (current && current.length + 2 + piece.length > max) {
        texts.push({ heading: section.heading, text: current });
        current = "";
      }
      current = current ? `${current}\n\n${piece}` : piece;
    }
    if (current) texts.push({ heading: section.heading, text: current });
  }
  return texts.map(({ heading, text }, n) => ({
    id: `${doc.id}#${n}`,
    doc: doc.id,
    title: heading && heading !== doc.title ? `${doc.title} › ${heading}` : doc.title,
    text,
    ...(doc.lang ? { lang: doc.lang } : {}),
  }));
}

/** Every document's chunks, documents in the order given. */
export function chunkDocuments(docs: readonly SourceDocument[], options: ChunkOptions = {}): Chunk[] {
  return docs.flatMap((d) => chunkDocument(d, options));
}
