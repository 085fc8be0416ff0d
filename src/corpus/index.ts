/**
 * Documents to search: read a folder (Markdown, text, HTML, PDF), cut it into chunks with stable
 * ids, and search them with BM25 (`rubricate/corpus`, docs/corpus.md). Document-search
 * environments ship an index built here; `env synth` drafts tasks citing its chunks.
 */
export type { Chunk, SourceDocument } from "./types.js";
export { readDocuments } from "./read.js";
export { chunkDocuments, type ChunkOptions } from "./chunk.js";
export { buildIndex, search, saveIndex, loadIndex, type SearchIndex, type SearchHit } from "./search.js";
