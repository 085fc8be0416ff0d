/**
 * Attacks are data: YAML files of response templates that deserve a zero reward (or, for
 * controls, do not), filled per sample with `{{question}}`, `{{answer}}`, `{{keywords}}`, ….
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod";
import { RubricateError } from "../errors.js";
import { packagedDir, parseConfig, readConfigText } from "../config/load.js";
import { IdSchema } from "../rubric/schema.js";
import { editorSchema } from "../rubric/json-schema.js";

/** What an attack exploits; picks the suggested fix when it wins. */
export const ATTACK_CATEGORIES = ["empty", "restate", "keywords", "wrong", "hedge", "padding", "boilerplate", "claim", "injection", "delimiter", "rubric-echo", "format", "language", "control", "generated"] as const;
/** The kinds of reward hack a probe attack tries (injection, keyword stuffing, …). */
export type AttackCategory = (typeof ATTACK_CATEGORIES)[number];

/** One attack: a response template and whether the response it makes deserves zero. */
export const AttackSchema = z.strictObject({
  id: IdSchema,
  category: z.enum(ATTACK_CATEGORIES),
  description: z.string().min(1).describe("What the attack tries, for the report"),
  deserves_zero: z.boolean().describe("true: every positive criterion should be unmet, so any reward is a hole; false: a control, reported for comparison only"),
  template: z.string().describe("The response; {{question}}, {{answer}} (the reference, else the sample's response), {{reference}}, {{keywords}}, {{wrong_answer}}, {{wrong_answer_alt}}, {{wrong_answer_json}}, {{filler}}, {{criteria_questions}}, {{criteria_claims}}, {{check_strings}}, {{nonce_previous}}, {{rubric_id}}, {{description}} fill per sample"),
  needs: z.array(z.string()).optional().describe("Variables that must be non-empty for the attack to apply to a sample (e.g. [answer])"),
  fix: z.string().optional().describe("A suggested fix shown when this attack wins, replacing the category's default"),
});
/** One probe attack: a response that deserves zero, with the category it tries. */
export type Attack = z.infer<typeof AttackSchema>;

/** An attack file: a mapping with an `attacks` list. */
export const AttackFileSchema = z.strictObject({
  description: z.string().optional(),
  attacks: z.array(AttackSchema).min(1),
});
/** A probe attack file (YAML), as written. */
export type AttackFile = z.infer<typeof AttackFileSchema>;

/**
 * Parses attack YAML; errors name file:line:col.
 * @example parseAttacks("attacks:\n  - { id: e, category: empty, description: nothing, deserves_zero: true, template: '' }\n")
 */
export function parseAttacks(text: string, options: { filename?: string } = {}): Attack[] {
  return parseConfig(text, AttackFileSchema, { filename: options.filename, explain: { keysAt: attackKeysAt } }).value.attacks;
}

function attackKeysAt(path: PropertyKey[]): string[] | undefined {
  if (path.length === 0) return Object.keys(AttackFileSchema.shape);
  if (path.length === 2 && path[0] === "attacks") return Object.keys(AttackSchema.shape);
  return undefined;
}

/** Reads one attack file, or every `*.yaml` in a folder (sorted by name). */
export function loadAttacks(path: string): Attack[] {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new RubricateError("FILE_NOT_FOUND", `no attack file or folder: ${path}`);
  }
  const files = isDir ? readdirSync(path).filter((f) => /\.ya?ml$/.test(f)).sort().map((f) => join(path, f)) : [path];
  return files.flatMap((file) => parseAttacks(readConfigText(file, { what: "attack" }), { filename: file }));
}

/** The folder of attacks shipped with the package (`probes/`). */
export function packagedProbesDir(): string {
  return packagedDir("probes");
}

/** The packaged battery. */
export function builtinAttacks(): Attack[] {
  return loadAttacks(packagedProbesDir());
}

/** Joins attack lists; a later attack with an id already seen is an error, not a silent override. */
export function mergeAttacks(...lists: Attack[][]): Attack[] {
  const seen = new Set<string>();
  const out: Attack[] = [];
  for (const attack of lists.flat()) {
    if (seen.has(attack.id)) throw new RubricateError("DUPLICATE_ID", `attack id "${attack.id}" appears twice; give your attack another id`);
    seen.add(attack.id);
    out.push(attack);
  }
  return out;
}

/**
 * The JSON Schema of attack files, generated from the zod schema, for editors
 * (`# yaml-language-server: $schema=…/schema/probe.schema.json`).
 * @example writeFileSync("schema/probe.schema.json", JSON.stringify(attackJsonSchema(), null, 2))
 */
export function attackJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(AttackFileSchema, { io: "input", target: "draft-7" }) as Record<string, unknown>;
  return editorSchema(schema, { file: "probe.schema.json", title: "rubricate probe attacks", description: "Adversarial responses for `rubricate probe`: templates filled per sample, each saying whether it deserves a zero reward." });
}
