import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node, type Scalar, type YAMLError } from "yaml";
import { RubricateError, type SourceLocation } from "../errors.js";

/** Largest rubric or config file we read, in bytes: a rubric is text an expert writes, not data. */
export const MAX_YAML_BYTES = 1024 * 1024;
/** Aliases a document may expand; a billion-laughs document needs far more. */
export const MAX_ALIAS_COUNT = 100;

/** A parsed YAML document that can point at the line and column of any path in it. */
export interface YamlSource {
  data: unknown;
  filename?: string;
  /** Location of the node at `path`, or of its nearest existing ancestor. */
  locate(path: readonly PropertyKey[], options?: { key?: string }): SourceLocation;
}

/**
 * Parses YAML text with limits: size, alias expansion, duplicate keys. Errors name file:line:col.
 * @example parseYamlSource("id: x\n", { filename: "r.yaml" }).data // { id: "x" }
 */
/** Deepest nesting of `[` and `{` accepted: the YAML parser recurses per level and would overflow the stack. */
export const MAX_YAML_DEPTH = 200;

/** The offset where flow collections (`[`, `{`) nest deeper than `limit`, outside quotes and comments; undefined when they never do. */
function flowNestingOver(text: string, limit: number): number | undefined {
  let depth = 0;
  let quote = "";
  let comment = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (comment) {
      if (c === "\n") comment = false;
      continue;
    }
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = "";
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(text[i - 1]))) comment = true;
    else if (c === "[" || c === "{") {
      if (++depth > limit) return i;
    } else if ((c === "]" || c === "}") && depth > 0) depth--;
  }
  return undefined;
}

export function parseYamlSource(text: string, options: { filename?: string; maxBytes?: number } = {}): YamlSource {
  const filename = options.filename;
  const maxBytes = options.maxBytes ?? MAX_YAML_BYTES;
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > maxBytes) {
    throw new RubricateError("YAML_TOO_LARGE", `file is ${bytes} bytes; the limit is ${maxBytes}`, { location: { file: filename } });
  }
  const lineCounter = new LineCounter();
  const tooDeep = flowNestingOver(text, MAX_YAML_DEPTH);
  if (tooDeep !== undefined) {
    let line = 1;
    let lineStart = 0;
    for (let i = 0; i < tooDeep; i++) if (text.charCodeAt(i) === 10) (line++, (lineStart = i + 1));
    throw new RubricateError("YAML_SYNTAX", `nesting deeper than ${MAX_YAML_DEPTH} levels; a rubric needs a handful`, { location: { file: filename, line, col: tooDeep - lineStart + 1 } });
  }
  let doc: Document.Parsed;
  try {
    doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false, strict: true, stringKeys: true });
  } catch (e) {
    throw new RubricateError("YAML_SYNTAX", `cannot parse YAML: ${(e as Error).message}`, { location: { file: filename }, cause: e });
  }
  const at = (offset: number): SourceLocation => {
    const { line, col } = lineCounter.linePos(offset);
    return { file: filename, line, col };
  };
  if (doc.errors.length > 0) {
    const issues = doc.errors.map((err) => {
      const { message, offset } = explainYamlError(doc, err);
      return { message, location: at(offset) };
    });
    throw new RubricateError("YAML_SYNTAX", joinIssues(issues), { location: issues[0].location, issues });
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (e) {
    const message = (e as Error).message;
    if (/alias/i.test(message)) {
      let firstAlias: number | undefined;
      visit(doc, { Alias: (_key, node) => (firstAlias ??= node.range?.[0], visit.BREAK) });
      throw new RubricateError("YAML_ALIAS_LIMIT", `too many alias expansions (limit ${MAX_ALIAS_COUNT}); the file looks like an alias bomb`, {
        location: firstAlias === undefined ? { file: filename, line: 1, col: 1 } : at(firstAlias),
      });
    }
    throw new RubricateError("YAML_SYNTAX", `cannot read YAML: ${message}`, { location: { file: filename, line: 1, col: 1 }, cause: e });
  }
  return {
    data,
    filename,
    locate(path, opts = {}) {
      const node = nodeAt(doc, path, opts.key);
      return node?.range ? at(node.range[0]) : { file: filename, line: 1, col: 1 };
    },
  };
}

function nodeAt(doc: Document.Parsed, path: readonly PropertyKey[], key?: string): Node | undefined {
  let node: unknown = doc.contents;
  let deepest: Node | undefined = doc.contents ?? undefined;
  for (const part of path) {
    const next = child(node, part);
    if (next === undefined) return deepest;
    node = next;
    if (isNodeLike(next)) deepest = next;
  }
  if (key !== undefined && isMap(node)) {
    const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === key);
    if (pair && isNodeLike(pair.key)) return pair.key;
  }
  return deepest;
}

function child(node: unknown, part: PropertyKey): unknown {
  if (isMap(node)) {
    const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(part));
    return pair?.value ?? (pair ? pair.key : undefined);
  }
  if (isSeq(node) && typeof part === "number") return node.items[part];
  return undefined;
}

function isNodeLike(value: unknown): value is Node {
  return typeof value === "object" && value !== null && "range" in value;
}

function yamlMessage(message: string, code: string): string {
  const firstLine = message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
  return code === "DUPLICATE_KEY" ? `duplicate key: ${firstLine}` : firstLine;
}

/** A YAML error's message and the offset to report: the repeated key by name, an unclosed quote where it opens. */
function explainYamlError(doc: Document.Parsed, err: YAMLError): { message: string; offset: number } {
  const offset = err.pos[0];
  const scalars: Scalar[] = [];
  visit(doc, { Scalar: (_key, node) => void scalars.push(node) });
  if (err.code === "DUPLICATE_KEY") {
    const key = scalars.find((s) => s.range?.[0] === offset);
    if (key) return { message: `duplicate key "${String(key.value)}" (keys of a mapping must be unique)`, offset };
  }
  if (err.code === "MISSING_CHAR" && /quote/.test(err.message)) {
    const open = scalars.find((s) => (s.type === "QUOTE_DOUBLE" || s.type === "QUOTE_SINGLE") && s.range && s.range[0] <= offset && offset <= s.range[1]);
    if (open?.range) return { message: `missing closing ${open.type === "QUOTE_DOUBLE" ? '"' : "'"} for the quoted string that starts here`, offset: open.range[0] };
  }
  if (err.code === "MULTIPLE_DOCS") return { message: "a rubric file holds one YAML document; a second one (after `---`) starts here", offset };
  return { message: yamlMessage(err.message, err.code), offset };
}

/** One message listing every issue, the first line carrying the first location. */
export function joinIssues(issues: { message: string; location?: SourceLocation }[]): string {
  return issues
    .map((issue, i) => (i === 0 ? issue.message : `${formatLocation(issue.location)}${issue.message}`))
    .join("\n");
}

/** "file:line:col: " or "" when there is no location. */
export function formatLocation(loc?: SourceLocation): string {
  if (!loc) return "";
  return `${[loc.file ?? "<input>", loc.line, loc.col].filter((p) => p !== undefined).join(":")}: `;
}
