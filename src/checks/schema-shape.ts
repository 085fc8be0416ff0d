/**
 * A JSON Schema's size as ajv compiles and validates it, measured before it compiles: a reward
 * server refuses a client's schema past a bound (src/bridge/sample-criteria.ts) instead of
 * compiling it on its event loop. No recursion (a schema may nest as deeply as its JSON does).
 *
 * ajv compiles each `$ref` target once, but validates it at every place that refers to it: a
 * chain of definitions each referring twice to the next (`a0: { allOf: [{$ref: a1}, {$ref: a1}] }`)
 * is a small schema that validates one value in 2^n steps (~3.7 s a value at n = 20). So the
 * schema is also measured as if every `$ref` were replaced by what it points to (memoized per
 * target, saturating instead of growing without end); a `$ref` back into its own path is recursion,
 * which the data pays for one level at a time, and counts once. `enum` and `const` values are
 * counted as well: each validated value is compared with every one of them. Every object and
 * array counts, and every `$ref` string is followed, wherever it is (a JSON Pointer may make ajv
 * compile any part of the schema, even inside a `const`): an overcount, never an undercount.
 */

/** What `schemaShape` measures. */
export interface SchemaShape {
  /** Objects and arrays as written: what ajv compiles (and keeps). */
  nodes: number;
  /** Objects and arrays as if every `$ref` were replaced by its target: what validating one value can visit. */
  expanded: number;
  /** `enum` entries and `const` values, as if refs were replaced. */
  values: number;
  /** Characters of those values' JSON, as if refs were replaced. */
  valueChars: number;
  /** The first `$ref` that points nowhere inside the schema (ajv may find it in another schema compiled before, which this cannot measure). */
  outsideRef?: string;
}

/** The base URI of a schema without `$id`; relative ids and refs resolve against it. */
const ROOT_BASE = "rubricate:///client-schema.json";

type Container = Record<string, unknown> | unknown[];
const isContainer = (value: unknown): value is Container => typeof value === "object" && value !== null;
const saturating = (x: number) => Math.min(x, Number.MAX_SAFE_INTEGER);

/** A URI resolved against a base, split at its fragment; undefined when it is not one. */
function resolveUri(ref: string, base: string): { document: string; fragment: string } | undefined {
  try {
    const url = new URL(ref, base);
    const fragment = decodeURIComponent(url.hash.replace(/^#/, ""));
    url.hash = "";
    return { document: url.href, fragment };
  } catch {
    return undefined;
  }
}

/** The value a JSON Pointer (a fragment "/a/b/0") names inside `from`, or undefined. */
function atPointer(from: unknown, pointer: string): unknown {
  let current = from;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isContainer(current) || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

const jsonLength = (value: unknown): number => {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return Number.MAX_SAFE_INTEGER; // nested past the stack: no bound could take it
  }
};

/**
 * The size of a JSON Schema: as written, as if its `$ref`s were inlined, and its `enum`/`const`
 * values (see the file's comment). Runs in time linear in the schema and its refs.
 * @example schemaShape({ definitions: { a: { type: "string" } }, $ref: "#/definitions/a" }).expanded // 4
 */
export function schemaShape(schema: unknown): SchemaShape {
  if (!isContainer(schema)) return { nodes: 0, expanded: 0, values: 0, valueChars: 0 };
  // Pass 1: every object and array, its children, its refs (still as text), and where ids and anchors point.
  const index = new Map<Container, number>();
  const containers: Container[] = [];
  const bases: string[] = [];
  const children: number[][] = [];
  const refs: string[][] = [];
  const ownValues: number[] = [];
  const ownChars: number[] = [];
  const named = new Map<string, Container>([[ROOT_BASE, schema]]);
  const visit = (node: Container, base: string): number => {
    const known = index.get(node);
    if (known !== undefined) return known;
    const i = containers.length;
    index.set(node, i);
    containers.push(node);
    bases.push(base);
    children.push([]);
    refs.push([]);
    ownValues.push(0);
    ownChars.push(0);
    return i;
  };
  const pending: [Container, number][] = [[schema, visit(schema, ROOT_BASE)]];
  while (pending.length > 0) {
    const [node, i] = pending.pop()!;
    let base = bases[i];
    if (!Array.isArray(node)) {
      if (typeof node.$id === "string") {
        const id = resolveUri(node.$id, base);
        if (id && id.fragment === "") {
          base = bases[i] = id.document;
          named.set(id.document, node);
        } else if (id) named.set(`${id.document}#${id.fragment}`, node); // draft-07 "$id": "#name"
      }
      if (typeof node.$anchor === "string") named.set(`${base}#${node.$anchor}`, node);
      if (typeof node.$ref === "string") refs[i].push(node.$ref);
      if (Array.isArray(node.enum)) {
        ownValues[i] += node.enum.length;
        ownChars[i] += jsonLength(node.enum);
      }
      if (Object.hasOwn(node, "const")) {
        ownValues[i] += 1;
        ownChars[i] += jsonLength(node.const);
      }
    }
    for (const value of Array.isArray(node) ? node : Object.values(node)) {
      if (!isContainer(value)) continue;
      const seen = index.has(value);
      const j = visit(value, base);
      children[i].push(j);
      if (!seen) pending.push([value, j]);
    }
  }
  // Each ref as the container it points to (one that points at a boolean schema or a string costs nothing more).
  let outsideRef: string | undefined;
  const edges = children.map((own, i) => {
    const targets = [...own];
    for (const ref of refs[i]) {
      const uri = resolveUri(ref, bases[i]);
      const document = uri && named.get(uri.document);
      const target = !uri || !document ? undefined : uri.fragment === "" ? document : uri.fragment.startsWith("/") ? atPointer(document, uri.fragment) : named.get(`${uri.document}#${uri.fragment}`);
      if (target === undefined) outsideRef ??= ref;
      const j = isContainer(target) ? index.get(target) : undefined;
      if (j !== undefined) targets.push(j);
    }
    return targets;
  });
  // Pass 2: sizes with refs inlined, memoized per container; a container still being measured (a cycle) counts once.
  const expanded = new Array<number>(containers.length).fill(0);
  const values = new Array<number>(containers.length).fill(0);
  const chars = new Array<number>(containers.length).fill(0);
  const state = new Uint8Array(containers.length); // 0 not yet, 1 being measured, 2 done
  const frames = [{ i: 0, edge: 0, n: 1, v: ownValues[0], c: ownChars[0] }];
  state[0] = 1;
  while (frames.length > 0) {
    const frame = frames.at(-1)!;
    if (frame.edge < edges[frame.i].length) {
      const j = edges[frame.i][frame.edge++];
      if (state[j] === 2) {
        frame.n = saturating(frame.n + expanded[j]);
        frame.v = saturating(frame.v + values[j]);
        frame.c = saturating(frame.c + chars[j]);
      } else if (state[j] === 1) frame.n = saturating(frame.n + 1);
      else {
        state[j] = 1;
        frames.push({ i: j, edge: 0, n: 1, v: ownValues[j], c: ownChars[j] });
      }
      continue;
    }
    frames.pop();
    state[frame.i] = 2;
    [expanded[frame.i], values[frame.i], chars[frame.i]] = [frame.n, frame.v, frame.c];
    const parent = frames.at(-1);
    if (parent) {
      parent.n = saturating(parent.n + frame.n);
      parent.v = saturating(parent.v + frame.v);
      parent.c = saturating(parent.c + frame.c);
    }
  }
  return { nodes: containers.length, expanded: expanded[0], values: values[0], valueChars: chars[0], ...(outsideRef !== undefined ? { outsideRef } : {}) };
}
