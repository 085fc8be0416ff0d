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
