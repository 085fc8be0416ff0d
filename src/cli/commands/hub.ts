import type { Command } from "commander";
import { pushAll, readPushFile } from "../../hub/push.js";
import { RubricateError } from "../../errors.js";

/** `rubricate hub push <file> --hub <url>`: (re)send results to a hub. */
export function register(program: Command): void {
  const hub = program.command("hub").description("The hub: send results to one (push)");
  hub
    .command("push")
    .description("Send results to a hub: the .hub.json a refused `eval --push` kept, or an eval's rollouts JSONL")
    .argument("<file>", "a .hub.json file, or rollouts JSONL (.rubricate/evals/…/<models>.jsonl)")
    .option("--hub <url>", "the hub (default $RUBRICATE_HUB)")
    .option("--judge <id>", "for rollouts JSONL: the judge the rubric was scored with")
    .option("--step <n>", "for rollouts JSONL: the training step these results are of")
    .option("--series <name>", "for rollouts JSONL: the model series the steps belong to")
    .option("--pass-threshold <x>", "for rollouts JSONL: a rollout passes when its reward ≥ x (default 1)")
    .action(async (file: string, flags: { hub?: string; judge?: string; step?: string; series?: string; passThreshold?: string }) => {
      const url = flags.hub ?? (process.env.RUBRICATE_HUB || undefined);
      if (!url) throw new RubricateError("BAD_INPUT", "hub push needs --hub <url> (or $RUBRICATE_HUB)");
      const step = flags.step === undefined ? undefined : Number(flags.step);
      if (step !== undefined && !(Number.isInteger(step) && step >= 0)) throw new RubricateError("BAD_INPUT", `--step ${flags.step}: expected a whole number ≥ 0`);
      const results = readPushFile(file, { judge: flags.judge, step, series: flags.series, ...(flags.passThreshold ? { passThreshold: Number(flags.passThreshold) } : {}) });
      // A resend keeps what is still refused in the same kind of file, beside the input.
      const pending = file.endsWith(".hub.json") ? file : `${file.replace(/\.jsonl$/, "")}.hub.json`;
      const answers = await pushAll(url, results, pending);
      for (const [i, a] of answers.entries()) process.stdout.write(`pushed ${results[i].model} on ${results[i].env.name}@${results[i].env.version} to ${url}${typeof a.url === "string" ? `: ${a.url}` : ""}\n`);
    });
}
