/**
 * The judge server of the benchmarks, in its own process so `process.cpuUsage()` of the
 * benchmark process is the library's alone. Started by `startServerChild` (server.ts) with its
 * options as JSON in argv; answers control messages over IPC.
 */
import { startOpenAIServer, type OpenAIServerOptions } from "../../src/testing/servers/openai-server.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";
import type { FaultOptions } from "../../src/testing/servers/common.js";

/** The fake judge's fixed answers: yes to q1, q3 and q5, no to the rest. */
const YES = new Set(["q1", "q3", "q5"]);

type Message =
  | { type: "stats"; id: number }
  | { type: "set"; id: number; behavior: FaultOptions }
  | { type: "reset"; id: number };

const options = JSON.parse(process.argv[2] ?? "{}") as OpenAIServerOptions;
const judge = judgeResponder((q) => YES.has(q.id));
/**
 * The throughput peer (bench/peer.ts) asks autoevals' way: one question per call, answered by a
 * `select_choice` tool call. It gets the same latency and server as rubricate's calls.
 */
const respond = (body: Record<string, unknown>) => {
  const tools = (body.tools ?? []) as { function?: { name?: string } }[];
  if (tools[0]?.function?.name === "select_choice") return { toolCalls: [{ name: "select_choice", arguments: { reasons: "The submission meets the criterion.", choice: "Y" } }] };
  return judge(body);
};
const srv = await startOpenAIServer({ ...options, recordBodies: false, respond });
let cpuStart = process.cpuUsage();
// Arrival times (ms since epoch) of requests, for the rate benchmarks; the records carry none.
const times: number[] = [];
let seen = 0;
const stamp = () => {
  const now = Date.now();
  for (; seen < srv.requests.length; seen++) times.push(now);
};
const ticker = setInterval(stamp, 5);

process.on("message", (m: Message) => {
  stamp();
  if (m.type === "set") srv.setBehavior(m.behavior);
  if (m.type === "reset") {
    cpuStart = process.cpuUsage();
    times.length = 0;
    srv.stats.peakInFlight = srv.stats.inFlight;
  }
  const cpu = process.cpuUsage(cpuStart);
  const faults = { ...srv.stats.faults };
  process.send!({ id: m.id, requests: srv.stats.requests, faults, cpuMicros: cpu.user + cpu.system, peakInFlight: srv.stats.peakInFlight, times: m.type === "stats" ? times : [] });
  // The records are only counted; dropping them keeps the server flat over long runs.
  srv.requests.length = 0;
  seen = 0;
});
process.on("disconnect", () => {
  clearInterval(ticker);
  void srv.close().then(() => process.exit(0));
});
process.send!({ url: srv.url });
