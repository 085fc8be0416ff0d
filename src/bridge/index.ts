/** The trainer bridge: an HTTP reward server speaking OpenRLHF's protocol and a plain batch API. */
export { createRewardServer, type RewardServer, type RewardServerOptions } from "./server.js";
export { defaultMapping, responseOf, openrlhfSamples, openrlhfResponse, DEFAULT_STRIP_SUFFIXES, type FieldMapping } from "./protocol.js";
export { tokenMatches, isLoopback } from "./auth.js";
export type { BridgeStats } from "./stats.js";
