/**
 * Stand-ins for the fetch globals `Headers` and `FormData` inside the bundled `openai` SDK's
 * request building (tsup.config.ts swaps them in for three of its files; the source tree and the
 * tests run the SDK with the real globals). In Node 20 both globals are lazy getters that load
 * undici, ~27–35 ms of CPU, and the SDK touches them on every call (`new Headers()` for each
 * request's headers, `body instanceof FormData`) though `nodeHttpFetch` never needs undici for a
 * JSON call. Undici's `Headers` also validates and copies on every operation, a measurable part
 * of the SDK's per-call CPU (BENCHMARKS.md, issue 31).
 */

/** HTTP whitespace a header value loses at both ends, as the Fetch standard normalizes it. */
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;
/** What a header value may not contain (fetch throws on it; node:http would refuse it too). */
const FORBIDDEN_VALUE = /[\0\r\n]/;
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

const tagOf = (value: unknown): string => Object.prototype.toString.call(value);

function headerName(name: string): string {
  const lower = String(name).toLowerCase();
  if (!HEADER_NAME.test(lower)) throw new TypeError(`Invalid header name: "${name}"`);
  return lower;
}

function headerValue(name: string, value: string): string {
  const normal = String(value).replace(EDGE_WHITESPACE, "");
  if (FORBIDDEN_VALUE.test(normal)) throw new TypeError(`Invalid header value for "${name}"`);
  return normal;
}

/**
 * The Fetch standard's `Headers` over a `Map` of lower-case names (combined values joined with
 * ", ", `set-cookie` kept as a list), iterated sorted by name. `instanceof` accepts any object
 * tagged `Headers` (undici's included) without loading undici; a `fetch` of any kind reads it as
 * a sequence of name and value pairs.
 */
export class SdkHeaders {
  readonly #values = new Map<string, string>();
  #cookies: string[] = [];
  /** The pairs in iteration order, kept until the next edit: the SDK and the fetch read them twice per call. */
  #sorted: [string, string][] | undefined;

  constructor(init?: RequestInit["headers"] | SdkHeaders) {
    if (init === undefined || init === null) return;
    const pairs = Symbol.iterator in Object(init) ? (init as Iterable<[string, string]>) : Object.entries(init as Record<string, string>);
    for (const pair of pairs) {
      if (pair.length !== 2) throw new TypeError("Headers: each pair needs a name and a value");
      this.append(pair[0], pair[1]);
    }
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return tagOf(value) === "[object Headers]";
  }

  get [Symbol.toStringTag](): string {
    return "Headers";
  }

  append(name: string, value: string): void {
    const key = headerName(name);
    const normal = headerValue(name, value);
    if (key === "set-cookie") this.#cookies.push(normal);
    this.#sorted = undefined;
    const old = this.#values.get(key);
    this.#values.set(key, old === undefined ? normal : `${old}, ${normal}`);
  }

  set(name: string, value: string): void {
    const key = headerName(name);
    const normal = headerValue(name, value);
    if (key === "set-cookie") this.#cookies = [normal];
    this.#sorted = undefined;
    this.#values.set(key, normal);
  }

  delete(name: string): void {
    const key = headerName(name);
    if (key === "set-cookie") this.#cookies = [];
    if (this.#values.delete(key)) this.#sorted = undefined;
  }

  get(name: string): string | null {
    return this.#values.get(headerName(name)) ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(headerName(name));
  }

  getSetCookie(): string[] {
    return [...this.#cookies];
  }

  forEach(fn: (value: string, key: string, headers: SdkHeaders) => void, thisArg?: unknown): void {
    for (const [key, value] of this.#pairs()) fn.call(thisArg, value, key, this);
  }

  /** Name and value pairs sorted by name, each `set-cookie` on its own, as `Headers` iterates. */
  entries(): IterableIterator<[string, string]> {
    return this.#pairs().map(([key, value]): [string, string] => [key, value])[Symbol.iterator]();
  }

  #pairs(): [string, string][] {
    if (this.#sorted) return this.#sorted;
    const pairs: [string, string][] = [];
    for (const key of [...this.#values.keys()].sort()) {
      if (key === "set-cookie") for (const cookie of this.#cookies) pairs.push([key, cookie]);
      else pairs.push([key, this.#values.get(key)!]);
    }
    return (this.#sorted = pairs);
  }

  *keys(): IterableIterator<string> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

/**
 * `FormData` for the SDK's `body instanceof FormData` tests, true of any object tagged
 * `FormData`; constructing one makes the real global (multipart uploads need undici anyway).
 */
export const SdkFormData = function FormData(...args: ConstructorParameters<typeof globalThis.FormData>) {
  return new globalThis.FormData(...args);
} as unknown as typeof globalThis.FormData;
Object.defineProperty(SdkFormData, Symbol.hasInstance, { value: (value: unknown) => tagOf(value) === "[object FormData]" });
