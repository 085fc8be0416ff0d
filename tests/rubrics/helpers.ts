import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { Criterion, Rubric } from "../../src/rubric/schema.js";
import type { Sample } from "../../src/types.js";

/** Every rubric YAML file under a folder, recursively, sorted. */
export function rubricFiles(dir = "rubrics"): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return rubricFiles(path);
      return /\.ya?ml$/.test(entry.name) ? [path] : [];
    })
    .sort();
}

/** The sample an example stands for: every rubric input (empty unless the example gives it), plus the response. */
export function exampleSample(rubric: Rubric, example: NonNullable<Criterion["examples"]>[number]): Sample {
  const sample: Sample = Object.fromEntries(rubric.inputs.map((name) => [name, ""]));
  Object.assign(sample, example.inputs ?? {});
  sample[rubric.response_field ?? "response"] = example.response;
  return sample;
}
