/** The trainer bridge: an HTTP reward server speaking OpenRLHF's protocol and a plain batch API. */
export { createRewardServer, type RewardServer, type RewardServerOptions } from "./server.js";
export { defaultMapping, type FieldMapping } from "./protocol.js";
export type { BridgeStats } from "./stats.js";
export { sessionRoutes, type SessionRoutesOptions } from "./sessions.js";
