/**
 * Documents to search: read a folder (Markdown, text, HTML, PDF), cut it into chunks with stable
 * ids, and search them with BM25 (`rubricate/corpus`). Document-search environments ship an index
 * built here; `env synth` drafts tasks citing its chunks.
 */
export type { Chunk, SourceDocument } from "./types.js";
export { readDocuments, readDocument, DOCUMENT_EXTENSIONS } from "./read.js";
export { chunkDocuments, chunkDocument, type ChunkOptions } from "./chunk.js";
export { buildIndex, search, saveIndex, loadIndex, chunkById, chunksHash, type SearchIndex, type SearchHit } from "./search.js";
export { detectLanguage } from "./language.js";
