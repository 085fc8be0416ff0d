/**
 * What `eval --push <hub>` sends and `hub serve` stores: one model's results on one exact
 * environment version. The hub refuses a result whose `env.integrity` differs from the registry's
 * for that version, so a number on a leaderboard always names the bytes it was measured on.
 */
import * as z from "zod";

/** Bumped when a field changes meaning; the hub refuses schemas it does not know. */
export const HUB_RESULT_SCHEMA = "rubricate.hub.result/1";

/**
 * Names JavaScript gives every object. The hub files results under their model names and
 * criterion ids; keys like these have reached `Object.prototype` through a plain object before,
 * so they are refused at the door as well as kept out of harm in the code that files them.
 */
export const RESERVED_NAMES = ["__proto__", "constructor", "prototype"] as const;

/** A model name or criterion id: any text but the reserved names. */
const Name = z.string().refine((s) => !(RESERVED_NAMES as readonly string[]).includes(s), { message: `a reserved name (${RESERVED_NAMES.join(", ")}): use another` });

const Interval = z.object({ n: z.number().int().nonnegative(), mean: z.number(), low: z.number(), high: z.number() });

export const HubResultSchema = z
  .object({
    schema: z.literal(HUB_RESULT_SCHEMA),
    env: z.object({
      name: z.string().min(1),
      version: z.string().min(1),
      /** The registry tarball's `sha512-…`; required for a published package. */
      integrity: z.string().min(1).optional(),
    }),
    model: Name.min(1),
    /** The judge model id(s) the rubric was scored with, as the eval summary names them. */
    judge: z.string().optional(),
    rubricateVersion: z.string().min(1),
    /** A training run's step (or policy version): points of one `series` draw a training curve. */
    step: z.number().int().nonnegative().optional(),
    /** The model series a step belongs to (default: the model id). */
    series: z.string().min(1).optional(),
    /** When the eval finished (ISO 8601). */
    finishedAt: z.string().datetime(),
    stats: z.object({
      rollouts: z.number().int().nonnegative(),
      tasks: z.number().int().nonnegative(),
      scored: z.number().int().nonnegative(),
      errors: z.number().int().nonnegative(),
      reward: Interval.optional(),
      passRate: z.number().min(0).max(1).optional(),
      passAtK: z.record(z.string().regex(/^\d+$/), z.number().min(0).max(1)),
      criteria: z.array(z.object({ id: Name, answered: z.number().int().nonnegative(), ok: z.number().int().nonnegative(), rate: z.number().min(0).max(1).nullable() })),
      costUsd: z.number().nonnegative(),
      /** Per task mean reward, so the hub can pair two models task by task. */
      perTask: z.record(z.string(), z.number()).optional(),
    }),
    /** The rollouts themselves (capped by the hub's body limit), or a link to where they are. */
    rollouts: z.array(z.record(z.string(), z.unknown())).optional(),
    rolloutsUrl: z.string().url().optional(),
  })
  .strict();

export type HubResult = z.infer<typeof HubResultSchema>;
