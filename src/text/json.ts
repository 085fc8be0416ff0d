/**
 * JSON that may not be JSON: what a server or a child process printed, read where a failure to
 * parse is an answer in itself (an error body, a CLI's output), not an error to raise.
 * @example parseJsonOrUndefined('{"a":1}') // { a: 1 }; parseJsonOrUndefined("<html>") // undefined
 */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** True for a JSON object (not an array, not null): what a parsed file's sections must be before their keys are read. */
export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
