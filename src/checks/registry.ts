/** Lookups over the table of kinds (kinds.ts): the kind a check definition names, and the pure kinds. */
import type { AnyCheckKind } from "./kind.js";
import { CHECK_KINDS } from "./kinds.js";

const byKey = new Map(CHECK_KINDS.map((k) => [k.key, k]));

/** The kind a (schema-valid) check definition names, with its settings and the options written beside them. */
export function kindOf(check: object): { kind: AnyCheckKind; spec: unknown; options: Record<string, unknown> } | undefined {
  for (const [key, value] of Object.entries(check)) {
    const kind = byKey.get(key);
    if (!kind) continue;
    const { [key]: _spec, field: _field, tag: _tag, ...options } = check as Record<string, unknown>;
    return { kind, spec: value, options };
  }
  return undefined;
}

/** The kinds a client may send as its own per-sample criteria (pure: no files, no code, no cost). */
export const pureCheckKinds = (): string[] => CHECK_KINDS.filter((k) => k.pure).map((k) => k.key);
