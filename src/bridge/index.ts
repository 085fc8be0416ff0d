/** The trainer bridge: an HTTP reward server speaking OpenRLHF's protocol and a plain batch API. */
export { createRewardServer, type RewardServer, type RewardServerOptions } from "./server.js";
export { defaultMapping, type FieldMapping } from "./protocol.js";
export type { BridgeStats } from "./stats.js";
export { sessionRoutes, type SessionRoutesOptions } from "./sessions.js";

// Types the exports above name in their signatures, so callers can name them too.
export type { Route } from "./routes.js";
export type { SampleCriteriaPolicy } from "./sample-criteria.js";
export type { ExtraRoute } from "./sessions.js";
