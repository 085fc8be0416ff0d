/** A small well-formedness check for the kit's output: tags balance, attributes are quoted. */
export function assertBalanced(markup: string): void {
  const stack: string[] = [];
  const voids = new Set(["meta", "br", "hr", "img", "input", "link"]);
  const body = markup.replace(/<!DOCTYPE[^>]*>/i, "").replace(/<script>[\s\S]*?<\/script>/g, "").replace(/<style>[\s\S]*?<\/style>/g, "");
  const re = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z_:][-a-zA-Z0-9_:.]*(?:="[^"<]*")?)*)\s*(\/?)>|<|>/g;
  for (const m of body.matchAll(re)) {
    if (m[0] === "<" || m[0] === ">") throw new Error(`stray ${m[0]} at ${m.index}: ${body.slice(Math.max(0, (m.index ?? 0) - 40), (m.index ?? 0) + 40)}`);
    const [, close, name, , self] = m;
    if (self || voids.has(name.toLowerCase())) continue;
    if (close) {
      const top = stack.pop();
      if (top !== name) throw new Error(`</${name}> closes <${top}>`);
    } else stack.push(name);
  }
  if (stack.length) throw new Error(`unclosed: ${stack.join(",")}`);
}
