/**
 * The work queue's Redis connection: `redis://[user:password@]host:port/db`. BullMQ (and ioredis)
 * load only here, when a command asks for a queue, never on the import path of the package.
 */
import { RubricateError } from "../errors.js";

/** The BullMQ queue every rubricate coordinator and worker on one Redis database share. */
export const QUEUE_NAME = "rubricate";

/** What BullMQ needs to reach Redis, parsed from a `redis://` URL. */
export interface QueueConnection {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  /** Ours when `rediss://`: TLS to the server. */
  tls?: Record<string, never>;
  /** BullMQ workers block on Redis: a command must wait out a reconnect instead of failing after 20 retries. */
  maxRetriesPerRequest: null;
  /** The URL without its password, for messages. */
  label: string;
}

/**
 * Parses a queue URL; the password stays in memory only (messages show the URL without it).
 * @example queueConnection("redis://127.0.0.1:6379/2") // { host: "127.0.0.1", port: 6379, db: 2, … }
 */
export function queueConnection(url: string): QueueConnection {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RubricateError("BAD_INPUT", `--queue takes redis://host:port/db, got "${url}"`);
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") throw new RubricateError("BAD_INPUT", `--queue takes redis://host:port/db, got "${url}"`);
  const db = parsed.pathname.replace(/^\//, "") === "" ? 0 : Number(parsed.pathname.slice(1));
  if (!Number.isInteger(db) || db < 0) throw new RubricateError("BAD_INPUT", `--queue: the database in "${url}" is not a number`);
  const port = parsed.port === "" ? 6379 : Number(parsed.port);
  const safe = new URL(parsed.href);
  safe.password = "";
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ""),
    port,
    db,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.protocol === "rediss:" ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
    label: safe.href,
  };
}

/** BullMQ, loaded on first use (it and ioredis cost ~150 ms to load). */
export function loadBullMQ(): Promise<typeof import("bullmq")> {
  return import("bullmq");
}

/** An ioredis client on the queue's database, as BullMQ wants it (commands wait out reconnects). */
export async function redisClient(connection: QueueConnection): Promise<import("ioredis").Redis> {
  const { Redis } = await import("ioredis");
  const client = new Redis(bullConnection(connection));
  // Outages are reported by whoever waits on the queue (with Redis named); ioredis would print each retry.
  client.on("error", () => undefined);
  return client;
}

/** The connection options BullMQ takes (without our label). */
export function bullConnection(connection: QueueConnection): Omit<QueueConnection, "label"> {
  const { label: _label, ...options } = connection;
  return options;
}
