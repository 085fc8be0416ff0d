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

/**
 * `text` with each part from `open` to the next `close` (both included) replaced by `replacement`;
 * an `open` with no `close` after it stays as written, with the rest. Found with indexOf, in time
 * linear in the text: a lazy regex (`<!--[\s\S]*?-->`) read to the end from every unclosed opener.
 * @example withoutEnclosed("a /* b *\/ c /* d", "/*", "*\/", " ") // "a   c /* d"
 */
export function withoutEnclosed(text: string, open: string, close: string, replacement = ""): string {
  let out = "";
  let from = 0;
  for (let start = text.indexOf(open); start !== -1; start = text.indexOf(open, from)) {
    const end = text.indexOf(close, start + open.length);
    // No close after this opener means none after any later one: the rest stays as written.
    if (end === -1) break;
    out += text.slice(from, start) + replacement;
    from = end + close.length;
  }
  return from === 0 ? text : out + text.slice(from);
}
