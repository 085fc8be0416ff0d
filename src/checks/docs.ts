/**
 * The reference table of check kinds in docs/writing-rubrics.md, generated from the table of kinds
 * (kinds.ts) so the docs name every kind, its settings and whether a client may send it.
 */
import type { z } from "zod";
import type { AnyCheckKind } from "./kind.js";
import { CHECK_KINDS } from "./kinds.js";
import { withMarkedSection } from "../text/markers.js";

/** The markers around the generated table in docs/writing-rubrics.md. */
export const CHECK_TABLE_START = "<!-- check-kinds:start (generated from src/checks/kinds.ts: npm run docs:checks) -->";
export const CHECK_TABLE_END = "<!-- check-kinds:end -->";

/** The names of a kind's settings: the keys of its settings object, or its value's form. */
function settingsOf(kind: AnyCheckKind): string {
  const shape = objectShape(kind.spec);
  const own = shape ? Object.keys(shape).map((k) => `\`${k}\``).join(", ") : (kind.spec.description ?? "a value");
  const options = Object.keys(kind.options ?? {}).map((k) => `\`${k}\``);
  return options.length ? `${own}; beside it: ${options.join(", ")}` : own;
}

/** The shape of an object schema, through refinements and unions that contain one (regex's string or object). */
function objectShape(schema: z.ZodType): Record<string, unknown> | undefined {
  const def = (schema as unknown as { def: { type: string; shape?: Record<string, unknown>; options?: z.ZodType[]; in?: z.ZodType } }).def;
  if (def.shape) return def.shape;
  if (def.type === "union") return def.options?.map(objectShape).find(Boolean);
  if (def.type === "pipe" && def.in) return objectShape(def.in);
  return undefined;
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/</g, "&lt;");

/** The markdown table: one row per kind, in the table's order. */
export function checkKindsTable(kinds: readonly AnyCheckKind[] = CHECK_KINDS): string {
  const rows = kinds.map((k) => `| \`${k.key}\` | ${cell(k.summary)} | ${cell(settingsOf(k))} | ${k.tag ? "yes" : "no"} | ${k.pure ? "yes" : "no"} | ${k.hacks?.length ?? 0} |`);
  return ["| kind | what it checks | settings | `tag:` | per-sample (client) | probe hacks |", "| --- | --- | --- | --- | --- | --- |", ...rows].join("\n");
}

/** `text` with the part between the markers replaced by the generated table. */
export function withCheckKindsTable(text: string, kinds: readonly AnyCheckKind[] = CHECK_KINDS): string {
  return withMarkedSection(text, CHECK_TABLE_START, CHECK_TABLE_END, checkKindsTable(kinds), "the check kinds table");
}
