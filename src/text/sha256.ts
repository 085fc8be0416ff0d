import * as crypto from "node:crypto";

/** `crypto.hash` (Node 20.12+): a one-shot digest without a Hash object; undefined on older Node 20. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash;

/**
 * The sha256 of a text (UTF-8) in hex. One-shot where Node has it: a `createHash` object per
 * digest was ~1.9 µs of a prompt's ~0.8 µs hash, on every judge call (the sample nonce).
 * @example sha256Hex("abc").slice(0, 16)
 */
export function sha256Hex(text: string): string {
  return oneShot ? oneShot("sha256", text, "hex") : crypto.createHash("sha256").update(text).digest("hex");
}
