/**
 * A stand-in hub for tests: POST /api/results, each body checked with the shared
 * `HubResultSchema` (the contract `hub serve` enforces); `refuse` answers 422 the way the hub
 * refuses a result. The real hub is `rubricate hub serve`.
 */
import { createServer, type Server } from "node:http";
import { HubResultSchema, type HubResult } from "../../src/hub/results.js";

export interface StandInHub {
  url: string;
  received: { body: HubResult; auth: string | undefined }[];
  refuse: boolean;
  close(): Promise<void>;
}

/** Starts the stand-in on 127.0.0.1:<ephemeral port>. */
export async function startStandInHub(): Promise<StandInHub> {
  const state: StandInHub = { url: "", received: [], refuse: false, close: async () => {} };
  const server: Server = createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8").on("data", (d: string) => (text += d));
    req.on("end", () => {
      const send = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      if (req.method !== "POST" || req.url !== "/api/results") return send(404, { error: { code: "NOT_FOUND", message: `no route ${req.method} ${req.url}` } });
      const parsed = HubResultSchema.safeParse(JSON.parse(text));
      if (!parsed.success) return send(400, { error: { code: "INVALID_RESULT", message: parsed.error.message } });
      if (state.refuse) return send(422, { error: { code: "INTEGRITY_MISMATCH", message: "env.integrity differs from the registry's for this version" } });
      state.received.push({ body: parsed.data, auth: req.headers.authorization });
      send(201, { id: state.received.length, url: `${state.url}/envs/${parsed.data.env.name}` });
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const addr = server.address() as { port: number };
  state.url = `http://127.0.0.1:${addr.port}`;
  state.close = () => new Promise((done) => server.close(() => done()));
  return state;
}
