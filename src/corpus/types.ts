/**
 * A user's documents as a document-search environment sees them: read from a folder (Markdown,
 * text, HTML, PDF), cut into chunks with ids that stay the same while the document's text does,
 * and indexed for search. Synthesised tasks cite chunks by these ids.
 */

/** One document as read from the folder. */
export interface SourceDocument {
  /** Its path relative to the documents folder, with `/` separators: the document's id. */
  id: string;
  title: string;
  /** The text as read (HTML and PDF converted to plain text). */
  text: string;
  /** ISO 639-1 code when known or detected (`en`, `de`, …). */
  lang?: string;
}

/** One searchable piece of a document. */
export interface Chunk {
  /** `<document id>#<n>`, stable while the document's text is unchanged. */
  id: string;
  /** The document it was cut from (`SourceDocument.id`). */
  doc: string;
  title: string;
  text: string;
  lang?: string;
}
