/**
 * A JSON Schema's size before it compiles (src/checks/schema-shape.ts): as written, as if its
 * `$ref`s were inlined (a fan-out chain is exponential, recursion counts once), and its enum/const
 * values; refs that point outside the schema are named.
 */
import { describe, expect, it } from "vitest";
import { schemaShape } from "../../src/checks/schema-shape.js";

/** `a0: { allOf: [$ref a1, $ref a1] }, a1: …`: small as written, 2^depth as validated. */
const fanOut = (depth: number, width = 2) => {
  const definitions: Record<string, unknown> = { [`a${depth}`]: { type: "string" } };
  for (let i = 0; i < depth; i++) definitions[`a${i}`] = { allOf: Array.from({ length: width }, () => ({ $ref: `#/definitions/a${i + 1}` })) };
  return { $ref: "#/definitions/a0", definitions };
};

describe("schemaShape", () => {
  it("counts objects and arrays, as written and (without refs) the same inlined", () => {
    const schema = { type: "object", properties: { a: { type: "string" }, b: { type: "array", items: { type: "number" } } }, required: ["a"] };
    expect(schemaShape(schema)).toEqual({ nodes: 6, expanded: 6, values: 0, valueChars: 0 });
    expect(schemaShape(true)).toEqual({ nodes: 0, expanded: 0, values: 0, valueChars: 0 });
  });

  it("a $ref counts as what it points to, at every place that refers to it", () => {
    const schema = { definitions: { name: { type: "string", minLength: 1 } }, properties: { first: { $ref: "#/definitions/name" }, last: { $ref: "#/definitions/name" } } };
    const shape = schemaShape(schema);
    expect(shape.nodes).toBe(6);
    expect(shape.expanded).toBe(8);
    expect(shape.outsideRef).toBeUndefined();
  });

  it("a chain that refers twice to the next is exponential inlined, and measured without expanding it", () => {
    const shape = schemaShape(fanOut(20));
    expect(shape.nodes).toBeLessThan(100);
    expect(shape.expanded).toBeGreaterThan(2 ** 20);
    // Depth 2,000: 2^2000 saturates instead of becoming Infinity.
    expect(schemaShape(fanOut(2000)).expanded).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("recursion (a $ref back into its own path) counts once: a tree schema stays its own size", () => {
    const tree = { type: "object", properties: { value: { type: "number" }, children: { type: "array", items: { $ref: "#" } } } };
    expect(schemaShape(tree)).toMatchObject({ nodes: 5, expanded: 6 });
    const mutual = { definitions: { a: { properties: { b: { $ref: "#/definitions/b" } } }, b: { properties: { a: { $ref: "#/definitions/a" } } } }, $ref: "#/definitions/a" };
    const shape = schemaShape(mutual);
    expect(shape.nodes).toBe(8);
    expect(shape.expanded).toBeLessThanOrEqual(3 * shape.nodes);
  });

  it("counts enum entries and const values, and their JSON, as many times as refs use them", () => {
    const colours = { enum: ["red", "green", "blue"] };
    expect(schemaShape(colours)).toMatchObject({ values: 3, valueChars: JSON.stringify(colours.enum).length });
    expect(schemaShape({ const: { answer: 42 } })).toMatchObject({ values: 1, valueChars: 13 });
    const reused = { definitions: { c: colours }, properties: { a: { $ref: "#/definitions/c" }, b: { $ref: "#/definitions/c" } } };
    expect(schemaShape(reused).values).toBe(9);
  });

  it("resolves refs to an $id, an $anchor, a draft-07 \"#name\" id and a relative document", () => {
    const schema = {
      $id: "https://example.com/root.json",
      definitions: {
        byId: { $id: "item.json", type: "string" },
        byAnchor: { $anchor: "amount", type: "number" },
        byName: { $id: "#flag", type: "boolean" },
      },
      properties: { a: { $ref: "item.json" }, b: { $ref: "#amount" }, c: { $ref: "#flag" }, d: { $ref: "https://example.com/root.json#/definitions/byId" }, e: { $ref: "#/definitions/by~1slash" } },
    };
    (schema.definitions as Record<string, unknown>)["by/slash"] = { type: "null" };
    const shape = schemaShape(schema);
    expect(shape.outsideRef).toBeUndefined();
    expect(shape.expanded).toBe(shape.nodes + 5);
  });

  it("names the first $ref that points outside the schema (another schema's $id, the network, a missing definition)", () => {
    expect(schemaShape({ $ref: "https://example.com/other.json" }).outsideRef).toBe("https://example.com/other.json");
    expect(schemaShape({ properties: { a: { $ref: "#/definitions/missing" } } }).outsideRef).toBe("#/definitions/missing");
    expect(schemaShape({ $ref: "#%zz" }).outsideRef).toBe("#%zz");
  });

  it("measures a schema nested 100,000 levels deep without recursion", () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 100_000; i++) deep = { not: deep };
    expect(schemaShape(deep)).toMatchObject({ nodes: 100_001, expanded: 100_001 });
  });
});
