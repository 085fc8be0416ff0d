/**
 * The one canonical JSON, for everything hashed: cache keys (engine/key) and the judge's sample nonce.
 * JSON with object keys sorted at every depth and undefined members dropped; equal values give equal text.
 * Written out directly (no sorted copy, then `JSON.stringify`): this is on every cache lookup's
 * path and the copy doubled its cost. The text is byte-identical to `JSON.stringify` of a sorted
 * copy, including its ordering of integer-like keys first, so existing cache keys stay valid.
 */
export function canonicalJson(value: unknown): string {
  return write(value) ?? "null";
}

// The text of values many keys share, written once (see `sharedCanonical`).
const shared = new WeakMap<object, string>();

/**
 * Deep-freezes `value` and remembers its canonical JSON: every key that contains this object reuses
 * the text instead of writing it again (a judge's JSON schema is in every request of its rubric,
 * ~30 % of a lookup's canonical JSON). Frozen because the text must never go stale: a later change
 * throws instead.
 * @example const schema = sharedCanonical(toJsonSchema(answer)); // in every request from now on
 */
export function sharedCanonical<T extends object>(value: T): T {
  deepFreeze(value);
  shared.set(value, write(value) ?? "null");
  return value;
}

// An object frozen already may still hold mutable members, so its members are visited too; `seen`
// ends the walk at an object met before (shared or cyclic).
function deepFreeze(value: unknown, seen = new WeakSet<object>()): void {
  if (typeof value !== "object" || value === null || seen.has(value)) return;
  seen.add(value);
  Object.freeze(value);
  for (const member of Object.values(value)) deepFreeze(member, seen);
}

function write(value: unknown): string | undefined {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
    case "boolean":
    case "bigint": // JSON.stringify throws for a bigint, as before
      return JSON.stringify(value);
    case "object":
      break;
    default:
      return undefined; // undefined, functions and symbols are dropped
  }
  const known = shared.get(value as object);
  if (known !== undefined) return known;
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i > 0 ? "," : "") + (write(value[i]) ?? "null");
    return `${out}]`;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return write((value as { toJSON(): unknown }).toJSON());
  let out = "";
  for (const k of orderedKeys(Object.keys(value))) {
    const text = write((value as Record<string, unknown>)[k]);
    if (text !== undefined) out += `${out ? "," : ""}${JSON.stringify(k)}:${text}`;
  }
  return `{${out}}`;
}

const INDEX = /^(?:0|[1-9]\d{0,9})$/;

/** Sorted keys in the order JSON.stringify lists an object built in that order: array-index keys first, ascending. */
function orderedKeys(keys: string[]): string[] {
  keys.sort();
  if (!keys.some(isIndex)) return keys;
  return [...keys.filter(isIndex).sort((a, b) => Number(a) - Number(b)), ...keys.filter((k) => !isIndex(k))];
}

/** An array-index key ("0" to "4294967294"); the first character rules out most keys without the expression. */
function isIndex(key: string): boolean {
  const first = key.charCodeAt(0);
  return first >= 48 && first <= 57 && INDEX.test(key) && Number(key) < 4294967295;
}
