import type { Command } from "commander";
import { runCodeUnsandboxed } from "../../checks/code/spec.js";
import { startQueueWorker } from "../../queue/worker.js";
import { EXIT, positiveInt } from "../run.js";
import { queueOption } from "../options.js";

interface WorkerFlags {
  queue: string;
  chunks?: number;
  lockMs?: number;
  envsDir?: string;
  quiet?: boolean;
  unsafeNoSandbox?: boolean;
}

/** `rubricate worker --queue redis://host:port/db`: scores chunks that `score --queue` puts on the queue, until SIGTERM. */
export function register(program: Command): void {
  program
    .command("worker")
    .description("Take chunks of queued runs (`score --queue`) from Redis and score them, until SIGTERM; start as many as you like, anywhere")
    .addOption(queueOption("the queue's Redis database, redis://[user:password@]host:port/db (the same URL the coordinator was given)").makeOptionMandatory())
    .option("--chunks <n>", "chunks worked on at once (default 2)", positiveInt)
    .option("--lock-ms <ms>", "how long a chunk stays locked to this worker without a sign of life; after that another worker takes it (default 30000)", positiveInt)
    .option("--envs-dir <dir>", "where environments of queued evals are installed from a registry or git (default .rubricate/envs)")
    .option("--unsafe-no-sandbox", "run `tests` checks and environments' sandbox commands unisolated on this machine (limits, no isolation): only for code you trust")
    .option("-q, --quiet", "no log lines on stderr")
    .action(async (flags: WorkerFlags) => {
      process.exitCode = await runWorker(flags);
    });
}

async function runWorker(flags: WorkerFlags): Promise<number> {
  if (flags.unsafeNoSandbox) await runCodeUnsandboxed();
  const log = (line: string) => flags.quiet || process.stderr.write(`worker: ${line}\n`);
  const worker = await startQueueWorker({ url: flags.queue, chunks: flags.chunks, lockMs: flags.lockMs, envsDir: flags.envsDir, unsafeNoSandbox: flags.unsafeNoSandbox, log });
  // First SIGTERM/Ctrl-C: finish the chunks in hand, take no more. Second: stop now; the chunks
  // in hand go back to the queue when their locks lapse (answers paid so far are in the cache).
  let stopping = false;
  const stopped = new Promise<number>((resolve) => {
    const onSignal = (name: NodeJS.Signals) => {
      if (stopping) {
        log(`${name} again: stopping now; the chunks in hand go back to the queue`);
        void worker.close(true).finally(() => resolve(EXIT.interrupted));
        return;
      }
      stopping = true;
      log(`${name}: finishing the chunks in hand, then stopping (${name} again to stop now)`);
      void worker.close().then(() => resolve(EXIT.ok));
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
  const code = await stopped;
  log(`stopped after ${worker.finished} chunk(s)`);
  // A forced stop leaves chunks' work and Redis reconnects behind: nothing of them is kept.
  setTimeout(() => process.exit(), 1_000).unref();
  return code;
}
