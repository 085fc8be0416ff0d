import type { Criterion } from "./schema.js";

/**
 * The first cycle of `when` conditions among criteria, as ids from its start back to it
 * (`["a", "b", "a"]`), or undefined. A cycle would leave criteria waiting on each other forever.
 * @example whenCycle([{ id: "a", when: "b" }, { id: "b", when: "a" }]) // ["a", "b", "a"]
 */
export function whenCycle(criteria: readonly Pick<Criterion, "id" | "when">[]): string[] | undefined {
  const parent = new Map(criteria.filter((c) => c.when !== undefined).map((c) => [c.id, c.when!]));
  for (const start of parent.keys()) {
    const path = [start];
    for (let current = parent.get(start); current !== undefined; current = parent.get(current)) {
      if (current === start) return [...path, start];
      if (path.includes(current)) break;
      path.push(current);
    }
  }
  return undefined;
}
