// Runs the local batch wire-format server in its own process, so the client's memory is measured alone.
import { startBatchServer } from "../tests/servers/batch-server.js";

const server = await startBatchServer({ respond: () => JSON.stringify({ answers: [{ id: "relevant", reason: "on topic", verdict: true }] }), forgetInputs: true });
process.stdout.write(`${server.url}\n`);
process.on("SIGTERM", () => void server.close().then(() => process.exit(0)));
