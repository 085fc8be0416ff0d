/**
 * The local server for each wire format in the provider table, so a test can reach every
 * provider (a new one included) without naming its server.
 */
import type { WireFormat } from "../../providers/registry.js";
import { startAnthropicServer } from "./anthropic-server.js";
import type { TestServer } from "./common.js";
import type { ServerOptions } from "./dialect.js";
import { startOpenAIServer } from "./openai-server.js";

/** Starts the local server speaking a provider's wire format (port 0 on 127.0.0.1). */
export function startWireServer(wire: WireFormat, options: ServerOptions = {}): Promise<TestServer<ServerOptions>> {
  const start: Record<WireFormat, (o: ServerOptions) => Promise<TestServer<ServerOptions>>> = {
    openai: startOpenAIServer,
    anthropic: startAnthropicServer,
  };
  return start[wire](options);
}
