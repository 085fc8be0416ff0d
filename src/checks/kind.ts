import type { z } from "zod";
import type { Sample } from "../types.js";
import type { CustomChecks } from "./custom.js";
import type { CheckMemo } from "./memo.js";

/** What a check kind sees: the text it grades (already read from its field, reasoning and tags applied) and the sample. */
export interface CheckInput {
  text: string;
  sample: Sample;
  /** The settings written beside the kind's key in the check (`contains: …, match: all` gives `{ match: "all" }`). */
  options: Record<string, unknown>;
  /** The folder of the rubric file, to resolve files shipped beside it. */
  rubricDir?: string;
  /** Custom check functions by name (for `custom`), passed where the rubric is scored. */
  checks?: CustomChecks;
  /** The check came from a client (per-sample criteria): its patterns run on RE2 only (`linearOnly`). */
  fromClient?: boolean;
  /**
   * Work the sample's checks share (a text folded once for all its `contains` criteria); absent, each check does its own.
   * @internal
   */
  memo?: CheckMemo;
}

/** A check's answer: pass or not, why, and for partial credit the share met (tests passed, similarity). */
export interface CheckResult {
  pass: boolean;
  reasoning?: string;
  /** In [0, 1]: how much of the criterion's points it earns; default 1 when it passes, 0 when not. */
  score?: number;
  /**
   * The response made the check unable to answer (a pattern it made backtrack past the deadline,
   * a formula past its time limit, a query that crashed the runner): `pass` is false, and a
   * pitfall (negative points) counts the check as hit, so no criterion gains from the failure.
   */
  forfeit?: boolean;
  /**
   * `pass` is false only because what the check looks for is where a page does not show it (an
   * HTML comment, a hidden element, a link's address), or because the text as written and as a
   * page shows it disagree (a `regex` match only a comment or a character reference makes or
   * hides): a requirement is unmet, for the reader never sees it, and a pitfall (negative points)
   * counts it as hit, for it is in the text all the same.
   */
  unshown?: boolean;
}

/** A problem in a check's settings found at load time; `path` is inside the kind's settings. */
export interface CheckProblem {
  message: string;
  path: PropertyKey[];
}

/** A lint finding a kind raises about its own settings (the rubric linter adds the criterion). */
export interface KindFinding {
  rule: string;
  severity: "error" | "warning" | "info";
  message: string;
  suggestion: string;
}

/** What the probe knows when it asks a kind for a fix: the criterion and the attack category that won it. */
export interface FixContext {
  criterionId: string;
  points: number;
  category: string;
}

/** One attack on a criterion of some kind: the response to send and the inputs it needs beside the sample's. */
export interface HackCase {
  response: string;
  /** Inputs that replace the sample's (e.g. the reference the wrong answer is aimed at, a trajectory). */
  inputs?: Sample;
}

/**
 * A known way to pass a check of this kind without doing the work (a reward hack). `build` makes
 * the attack for one criterion's settings and one probe sample, or returns undefined when the
 * attack does not apply to those settings. Every hack deserves to fail: `rubricate probe`
 * reports the criteria a hack passes.
 */
export interface CheckHack<Spec = unknown> {
  id: string;
  description: string;
  build(spec: Spec, sample: Sample): HackCase | undefined;
}

/**
 * A check kind: its key in the rubric (`math:`), the zod schema of its settings, and the function
 * that runs it. Everything else about a kind is declared here too, and the rubric schema, load-time
 * validation, lint, the per-sample allow-list, probe fixes, probe hacks and the docs table are
 * derived from the one table of kinds (kinds.ts). A new kind is one file plus its tests.
 */
export interface CheckKind<Spec = unknown> {
  key: string;
  spec: z.ZodType<Spec>;
  /** One line for the docs table: when to use this check. */
  summary: string;
  /** Settings written beside the key (`contains: x, match: all`); `field` (and `tag`) are added for every kind. */
  options?: z.ZodRawShape;
  /** Accepts `tag: name`: the check reads only the last `<name>…</name>` section (default false). */
  tag?: boolean;
  /**
   * Safe to accept from a client as a per-sample criterion: reads only the sample's text, opens no
   * file, runs no code of the server's or the client's, costs no money (default false).
   */
  pure?: boolean;
  /** Grades the final answer, so letting it read the reasoning lets a wrong answer pass (lint `grades-reasoning`). */
  gradesAnswer?: boolean;
  /**
   * Why this kind must not be a rubric's whole reward (a lexical score that wrong answers reach);
   * lint `lexical-only-reward` warns when every criterion that earns points is of such kinds.
   */
  notAloneReason?: string;
  /** Load-time checks beyond the schema (a regex or JSON Schema that does not compile). */
  validate?(spec: Spec): CheckProblem | undefined;
  /** Lint findings about the settings (a threshold that lets anything through), and the options written beside them. */
  lint?(spec: Spec, options: Record<string, unknown>): KindFinding[];
  /** Sample inputs the check reads besides `{{variables}}` and `field`; a list is alternatives, any one enough. */
  inputs?(spec: Spec): (string | string[])[];
  /** Strings the check looks for, which the probe's keyword-stuffing attacks put in a response. */
  keywords?(spec: Spec): string[];
  /** True when an empty response passes (the check tests for an absence). */
  passesEmpty?(spec: Spec): boolean;
  /** The fix `rubricate probe` suggests when an attack wins a criterion of this kind. */
  fix?(spec: Spec, context: FixContext): string;
  /** Known attacks on this kind, run by `rubricate probe` against every criterion of the kind. */
  hacks?: readonly CheckHack<Spec>[];
  run(spec: Spec, input: CheckInput): CheckResult | Promise<CheckResult>;
}

/** A kind of any settings type: how the table (kinds.ts) holds kinds side by side; a kind's own file keeps its Spec. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each kind checks its settings with its own zod schema before run sees them
export type AnyCheckKind = CheckKind<any>;

/** Identity helper that keeps a kind's Spec type attached to its `run` and hooks. */
export const defineCheck = <Spec>(kind: CheckKind<Spec>): CheckKind<Spec> => kind;

/**
 * A kind's `run` whose implementation is imported on the first check and kept: a program whose
 * rubrics have no check of the kind never loads it, and later checks call it without another
 * `import()`. A failed import is not kept, so the next check tries again.
 * @example run: runOnFirstUse(async () => (await import("../math/check.js")).runMath)
 */
export function runOnFirstUse<Spec>(load: () => Promise<CheckKind<Spec>["run"]>): CheckKind<Spec>["run"] {
  let loading: Promise<CheckKind<Spec>["run"]> | undefined;
  return async (spec, input) => {
    loading ??= load().catch((e: unknown) => {
      loading = undefined;
      throw e;
    });
    return (await loading)(spec, input);
  };
}
