import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();

/**
 * True when `presented` equals `expected`. Both are hashed first, so the comparison is over
 * equal-length digests and takes the same time whatever the inputs (no length or prefix leak).
 */
export function tokenMatches(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  return timingSafeEqual(digest(presented), digest(expected));
}

/** The bearer token of a request (`Authorization: Bearer <token>`), if any. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (typeof header !== "string") return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  return match ? match[1].trim() : undefined;
}

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}
