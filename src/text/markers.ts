/**
 * `text` with the part between two marker lines replaced by `content` (a generated docs table);
 * markers that are missing are an error naming them, never a write to nowhere.
 * @example withMarkedSection(doc, "<!-- t:start -->", "<!-- t:end -->", table, "the check kinds table")
 */
export function withMarkedSection(text: string, start: string, end: string, content: string, what: string): string {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from === -1 || to < from) throw new Error(`${what} markers are missing (${start} … ${end})`);
  return `${text.slice(0, from + start.length)}\n${content}\n${text.slice(to)}`;
}
