import { isUtf8 } from "node:buffer";

/**
 * Decodes UTF-8 bytes, or says where they stop being UTF-8. Node's own decoding turns each
 * invalid byte into U+FFFD without a word: a rubric or samples file saved as Latin-1 or
 * Windows-1252 ("café" as 63 61 66 E9) reached the judge as "caf�". The check is native and runs
 * only when the decoded text holds a U+FFFD, which valid input rarely does.
 * @returns the text, or the line and column (1-based, in characters) of the first invalid byte and the byte itself
 * @example const read = decodeUtf8(readFileSync(path)); if ("bad" in read) throw …
 */
export function decodeUtf8(bytes: Uint8Array): { text: string } | { bad: { line: number; col: number; byte: number } } {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  if (!text.includes("\uFFFD") || isUtf8(bytes)) return { text };
  const at = firstInvalidByte(bytes);
  const before = Buffer.from(bytes.buffer, bytes.byteOffset, at).toString("utf8");
  const lineStart = before.lastIndexOf("\n") + 1;
  return { bad: { line: countNewlines(before) + 1, col: before.length - lineStart + 1, byte: bytes[at] } };
}

/** How an invalid byte is shown in a message: its value and what to do about it. */
export function invalidUtf8Message(byte: number): string {
  return `byte 0x${byte.toString(16).toUpperCase().padStart(2, "0")} is not UTF-8 text (was the file saved as Latin-1 or Windows-1252? save it as UTF-8)`;
}

/** The offset of the first byte that does not belong to a well-formed UTF-8 sequence (RFC 3629: no overlongs, surrogates or code points past U+10FFFF), or -1. */
export function firstInvalidByte(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    const length = sequenceLength(bytes, i);
    if (length === 0) return i;
    i += length;
  }
  return -1;
}

/** The length of the well-formed sequence starting at `i`, or 0 when none does. */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const lead = bytes[i];
  if (lead < 0x80) return 1;
  const length = lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
  if (length === 0 || i + length > bytes.length) return 0;
  for (let k = 1; k < length; k++) if ((bytes[i + k] & 0xc0) !== 0x80) return 0;
  // The second byte's range is narrower after these leads: overlong forms, UTF-16 surrogates, past U+10FFFF.
  const second = bytes[i + 1];
  if ((lead === 0xe0 && second < 0xa0) || (lead === 0xed && second > 0x9f) || (lead === 0xf0 && second < 0x90) || (lead === 0xf4 && second > 0x8f)) return 0;
  return length;
}

function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}
