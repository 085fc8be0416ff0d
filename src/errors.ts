/** Where in a source file something went wrong (1-based line and column). */
export interface SourceLocation {
  file?: string;
  line?: number;
  col?: number;
}

/**
 * Every error code rubricate throws or reports, in one list: the library's, then the reward
 * server's HTTP answers. Stable, for programs to branch on (`ErrorCode` is its union).
 */
export const ERROR_CODES = [
  "YAML_SYNTAX", "YAML_TOO_LARGE", "YAML_ALIAS_LIMIT", "SCHEMA", "DUPLICATE_ID", "WHEN_MISSING", "WHEN_CYCLE",
  "NO_POSITIVE_POINTS", "EXTENDS_CYCLE", "EXTENDS_NOT_FOUND", "FILE_NOT_FOUND", "TEMPLATE_MISSING_VAR",
  "MISSING_INPUT", "CHECK_FAILED", "UNKNOWN_CHECK", "NO_JUDGE", "JUDGE_CONFIG", "JUDGE_PARSE", "JUDGE_REFUSAL",
  "PROVIDER_HTTP", "PROVIDER_TIMEOUT", "PROVIDER_NETWORK", "RATE_LIMITED", "MISSING_API_KEY", "ABORTED", "DEFERRED",
  "BATCH_FAILED", "CACHE", "BAD_INPUT", "SESSION_NOT_FOUND", "SESSION_BUSY", "SESSION_LIMIT", "PACKAGE_NOT_FOUND", "PACKAGE_INVALID",
  "REGISTRY_AUTH", "REGISTRY_DOWN", "SANDBOX", "HOOK_FAILED", "ROLLOUT_TIMEOUT", "WRITE_FAILED", "CHECK_TIMEOUT",
  "QUEUE", "REGEX_REFUSED", "SESSION_TOO_LARGE",
  // A hub (`eval --push`, `hub push`) that refused a result, or could not be reached.
  "HUB_REFUSED", "HUB_DOWN",
  "INTERNAL",
  // A sample the reward server did not score within its request deadline (`serve --timeout-ms`).
  "DEADLINE",
  // The reward server's HTTP answers (bridge/): bad requests, refusals, limits, lifecycle.
  "INVALID_JSON", "INVALID_REQUEST", "SAMPLE_CHECK_REFUSED", "SAMPLE_CRITERIA_REFUSED", "SAMPLE_QUESTIONS_REFUSED",
  "UNAUTHORIZED", "CROSS_ORIGIN", "HOST_REFUSED", "NOT_FOUND", "METHOD_NOT_ALLOWED", "BODY_TOO_LARGE",
  "TOO_MANY_ROLLOUTS", "TOO_MANY_SAMPLES", "UNSUPPORTED_MEDIA_TYPE", "CLIENT_CLOSED", "JUDGE_UNAVAILABLE",
  "SHUTTING_DOWN", "TIMEOUT", "SAMPLE_REGEX_REFUSED", "SAMPLE_TOO_DEEP", "SAMPLE_CRITERIA_TOO_LARGE",
  // A session step whose `turn` is not the session's (sent out of order, or another step at a turn already taken).
  "TURN_MISMATCH",
  // A keyed session open or rollouts request whose key first came with another request (a retry must send the same one).
  "KEY_MISMATCH",
  // The hub's (site/): a pushed result whose environment version or tarball hash the registry does not know.
  "UNKNOWN_VERSION", "INTEGRITY_MISMATCH", "EVAL_BUSY",
] as const;

/** Every error code rubricate throws or reports; stable, for programs to branch on. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** True when a string is one of rubricate's error codes (a code read back from JSON). */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && (ERROR_CODES as readonly string[]).includes(value);
}

/** The brand every RubricateError carries, shared by every copy of the package (ESM and CJS builds, duplicate installs). */
const BRAND = Symbol.for("rubricate.RubricateError");

/**
 * The one error class rubricate throws: a stable `code`, a message that names the file, line
 * and column where there is one, and whether retrying could help.
 * @example
 * try { await loadRubric("r.yaml") } catch (e) { if (RubricateError.isInstance(e) && e.code === "SCHEMA") ... }
 */
export class RubricateError extends Error {
  /**
   * `instanceof` checks the brand, not the prototype chain, so an error thrown by the CommonJS
   * build is recognised by the ESM build's class and the other way round.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  /** True for a RubricateError from any copy of the package. */
  static isInstance(value: unknown): value is RubricateError {
    return RubricateError[Symbol.hasInstance](value);
  }

  declare readonly [BRAND]: true;
  readonly code: ErrorCode;
  readonly location?: SourceLocation;
  readonly retryable: boolean;
  /** Milliseconds the server asked us to wait (from `retry-after-ms`, or `retry-after` in seconds or as a date), when it said. */
  readonly retryAfterMs?: number;
  readonly status?: number;
  /** Every problem found, when there were several (e.g. all schema issues of one file). */
  readonly issues?: { message: string; location?: SourceLocation }[];

  constructor(
    code: ErrorCode,
    message: string,
    options: {
      location?: SourceLocation;
      cause?: unknown;
      retryable?: boolean;
      retryAfterMs?: number;
      status?: number;
      issues?: { message: string; location?: SourceLocation }[];
    } = {},
  ) {
    super(withLocation(message, options.location), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "RubricateError";
    Object.defineProperty(this, BRAND, { value: true });
    this.code = code;
    this.location = options.location;
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
    this.status = options.status;
    this.issues = options.issues;
  }

  /** A plain object for JSON output (results files, HTTP bodies). */
  toJSON(): { code: ErrorCode; message: string } {
    return { code: this.code, message: this.message };
  }
}

function withLocation(message: string, loc?: SourceLocation): string {
  if (!loc?.file && loc?.line === undefined) return message;
  const where = [loc.file ?? "<input>", loc.line, loc.col].filter((p) => p !== undefined).join(":");
  return `${where}: ${message}`;
}

/** True for a `RubricateError`, optionally with the given code. */
export function isRubricateError(e: unknown, code?: ErrorCode): e is RubricateError {
  return e instanceof RubricateError && (code === undefined || e.code === code);
}

/** Wraps anything thrown into a `RubricateError` (unknown errors become `INTERNAL`). */
export function toRubricateError(e: unknown, fallback: ErrorCode = "INTERNAL"): RubricateError {
  if (e instanceof RubricateError) return e;
  if (e instanceof Error && e.name === "AbortError") return new RubricateError("ABORTED", "aborted", { cause: e });
  const message = e instanceof Error ? e.message : String(e);
  return new RubricateError(fallback, message, { cause: e });
}
