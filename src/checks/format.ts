/**
 * Tagged sections of a text (`<answer>…</answer>`): where each one is, and the content of the
 * last one. The `tags` kind (kinds/tags.ts) checks the layout; the `tag` option every answer
 * check shares (run.ts) reads one section.
 */
export interface TagSpan {
  start: number;
  end: number;
  content: string;
}

/** Every complete `<name>…</name>` in the text, in order (not nested in itself). */
export function tagSpans(text: string, name: string): TagSpan[] {
  const spans: TagSpan[] = [];
  const open = `<${name}>`;
  const close = `</${name}>`;
  const lower = text.toLowerCase();
  let from = 0;
  for (;;) {
    const start = lower.indexOf(open.toLowerCase(), from);
    if (start === -1) return spans;
    const end = lower.indexOf(close.toLowerCase(), start + open.length);
    if (end === -1) return spans;
    spans.push({ start, end: end + close.length, content: text.slice(start + open.length, end) });
    from = end + close.length;
  }
}

/** The trimmed content of the last `<name>…</name>` (verifiers' XMLParser.parse_answer), or undefined. */
export function tagContent(text: string, name: string): string | undefined {
  const spans = tagSpans(text, name);
  return spans.length ? spans[spans.length - 1].content.trim() : undefined;
}

