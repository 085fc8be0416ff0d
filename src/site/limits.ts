/**
 * The hub's two limits per minute, both answered with 429 and Retry-After before the registry is
 * asked anything:
 *
 * - **writes per token** (pushed results, started evals): each write asks the registry who the
 *   token is and what it publishes, and a pushed result stays in the store; without a limit one
 *   token could fill the store, or keep the hub asking the registry, without end.
 * - **unknown tokens per client address**: a token the registry has not accepted lately costs a
 *   question to the registry (sign-in, an API call, a page view with a stale cookie). Without a
 *   limit the hub is a free relay for guessing tokens, one that hides the guesser's address from
 *   the registry; a token the registry accepts gives its count back, so signed-in visitors are
 *   never limited by it.
 *
 * Counted in memory per hub process, in fixed one-minute windows; tokens only by their sha256
 * (the token itself is not kept), addresses by `addressKey`. When very many keys count at once the
 * least recent are forgotten first.
 */
import ipaddr from "ipaddr.js";
import { LRUCache } from "lru-cache";

/** Writes one token may make per minute unless `hub serve --writes-per-minute` says otherwise. */
export const DEFAULT_WRITES_PER_MINUTE = 30;
/** Tokens not yet accepted one address may present per minute unless `hub serve --unknown-tokens-per-minute` says otherwise. */
export const DEFAULT_UNKNOWN_TOKENS_PER_MINUTE = 10;
const WINDOW_MS = 60_000;

/** A number of events per key per minute, in a fixed window from the key's first event. */
export class MinuteLimit {
  private readonly windows = new LRUCache<string, { count: number; endsAt: number }>({ max: 10_000 });

  /**
   * @param perMinute events one key may have in a minute
   * @param now the clock, for tests
   */
  constructor(
    readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts one event of `key`: 0 when it may go ahead, else the whole seconds until its minute
   * ends (a refused event is not counted).
   * @example const wait = limit.take(key); if (wait > 0) refuse(429, { "retry-after": wait })
   */
  take(key: string): number {
    const now = this.now();
    let window = this.windows.get(key);
    if (window === undefined || now >= window.endsAt) this.windows.set(key, (window = { count: 0, endsAt: now + WINDOW_MS }));
    if (window.count >= this.perMinute) return Math.max(1, Math.ceil((window.endsAt - now) / 1000));
    window.count++;
    return 0;
  }

  /** Gives back one event `take` counted in the key's current minute (it turned out not to count). */
  give(key: string): void {
    const window = this.windows.get(key);
    if (window !== undefined && window.count > 0 && this.now() < window.endsAt) window.count--;
  }
}

/**
 * What a client address is counted under: an IPv4 address in its usual form; an IPv6 address by its
 * /64, the network one subscriber is given, where a host may take any of 2^64 addresses (counting
 * single ones would let it present a fresh address per guess); an IPv4 client seen through an
 * IPv6 socket (`::ffff:203.0.113.7`) as the IPv4 address. Anything that is no address is itself.
 * @example addressKey("2001:db8:1:2:aaaa::1") // "2001:db8:1:2::/64"
 */
export function addressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv4") return parsed.toString();
  return `${(parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16)).join(":")}::/64`;
}
