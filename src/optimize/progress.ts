import type { ProgressEvent } from "./types.js";

/** One terminal line for a progress event, e.g. `iter 12  accepted  #7 ← #3  best 0.833  calls 214  reflections 9`. */
export function progressLine(event: ProgressEvent): string {
  if (event.type === "warning") return `warning: ${event.message}`;
  if (event.type === "seed") return `seed    mean ${event.meanScore.toFixed(3)}  calls ${event.metricCalls}`;
  const who = event.child !== undefined ? `#${event.child}${event.parent !== undefined ? ` ← #${event.parent}` : ""}` : event.parent !== undefined ? `parent #${event.parent}` : "";
  return [
    `iter ${event.iteration}`,
    event.kind.replace(/_/g, " "),
    who,
    `best ${event.bestScore.toFixed(3)}`,
    `calls ${event.metricCalls}`,
    `reflections ${event.reflectionCalls}`,
    event.detail ?? "",
  ].filter((p) => p !== "").join("  ");
}
