/**
 * Keeps web pages away from the reward server. A page the user visits can make the browser send
 * requests to 127.0.0.1: a "simple" cross-origin POST (text/plain, no preflight) or, through DNS
 * rebinding, any request under a hostile Host name. So every request must name the server's own
 * address in `Host`, must not come from another origin (`Origin`, `Sec-Fetch-Site`), and a POST
 * must be `application/json`, which no page can send cross-origin without a CORS preflight that
 * this server never grants.
 */
import type { IncomingMessage } from "node:http";
import { isLoopback } from "./auth.js";
import { HttpError } from "./http.js";

/** The `Host` values a server accepts; `undefined` accepts any (bound to every interface, where a token is required anyway). */
export function allowedHosts(boundAddress: string, port: number, extra: string[] = []): Set<string> | undefined {
  const address = boundAddress.replace(/^\[|\]$/g, "");
  const wildcard = address === "0.0.0.0" || address === "::";
  if (wildcard && extra.length === 0) return undefined;
  const names = new Set<string>(extra.map((h) => h.toLowerCase()));
  const add = (host: string) => {
    const shown = host.includes(":") ? `[${host}]` : host;
    names.add(`${shown}:${port}`);
    if (port === 80) names.add(shown);
  };
  if (!wildcard) add(address);
  if (isLoopback(address)) for (const name of ["127.0.0.1", "localhost", "::1"]) add(name);
  return names;
}

/** Throws the 403/415 a request from a browser page (or under a foreign Host) gets. */
export function guardRequest(req: IncomingMessage, hosts: Set<string> | undefined): void {
  const host = (req.headers.host ?? "").toLowerCase();
  if (hosts && !hosts.has(host)) {
    throw new HttpError(403, "HOST_REFUSED", `Host "${host.slice(0, 100)}" is not this server's address (${[...hosts].slice(0, 3).join(", ")}); start it with --allow-host <name:port> to accept another name`);
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !(hosts ?? new Set([host])).has(originHost(origin))) {
    throw new HttpError(403, "CROSS_ORIGIN", "requests from web pages of another origin are refused (the reward server is for trainers, not browsers)");
  }
  const site = req.headers["sec-fetch-site"];
  if (site === "cross-site" || site === "same-site") throw new HttpError(403, "CROSS_ORIGIN", "requests from web pages of another site are refused");
  if (req.method === "POST") {
    const type = String(req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
    if (type !== "application/json") throw new HttpError(415, "UNSUPPORTED_MEDIA_TYPE", `send the body as Content-Type: application/json${type ? `, not ${type.slice(0, 60)}` : " (the header is missing)"}`);
  }
}

function originHost(origin: string): string {
  try {
    const url = new URL(origin);
    return url.protocol === "http:" ? url.host.toLowerCase() : "";
  } catch {
    return "";
  }
}
