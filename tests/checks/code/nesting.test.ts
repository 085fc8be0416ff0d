import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nestingDepth } from "../../../src/checks/code/nesting.js";
import { HOSTILE_CODE } from "./hostile-code.js";

// A solution written as people write them: functions, closures, ternaries, classes, regexes,
// templates, TypeScript types, code with and without semicolons.
const ORDINARY = `
import { readFileSync } from "node:fs"

export interface Tree<T> { value: T; children: Array<Tree<T>>; meta?: Map<string, Set<number>> }

const OPEN = "(((([[[[{{{{"   // brackets in a string: not code
const CLOSE = '))))]]]]}}}}'
/* a comment with (((( and [[[[ and a ? b : c ? d : e */
const re = /[(\\[{]+|\\((?:a|b)\\)/g
const tpl = \`depth \${depth({ value: 1, children: [] })} of \${"((((" + \`\${OPEN}\`}\`

export function depth<T>(tree: Tree<T>): number {
  return tree.children.length === 0 ? 1 : 1 + Math.max(...tree.children.map((c) => depth(c)))
}

export const classify = (n: number): string => (n < 0 ? "negative" : n === 0 ? "zero" : n < 10 ? "small" : "large")

class Stack<T> {
  private items: T[] = []
  push(x: T) { this.items.push(x); return this }
  pop(): T | undefined { return this.items.pop() }
  get size() { return this.items.length }
}

function balanced(s: string): boolean {
  const pairs: Record<string, string> = { ")": "(", "]": "[", "}": "{" }
  const stack = new Stack<string>()
  for (const ch of s) {
    if ("([{".includes(ch)) stack.push(ch)
    else if (ch in pairs) {
      if (stack.pop() !== pairs[ch]) return false
    } else if (ch === "/") continue
    else continue
  }
  return stack.size === 0 && !!re && typeof tpl === "string" && !(-1 > +2)
}
let x = 1, y = x = 2
x = y ** 2 ** 1
export default async function main() { const data = await Promise.all([1, 2].map(async (v) => v * 2)); return data.length / 2 }
`;

describe("how deeply code nests, read before esbuild", () => {
  it.each(HOSTILE_CODE.map((h) => [h.name, h] as const))("%s reads at least that deep", (_name, { code, levels }) => {
    expect(nestingDepth(code)).toBeGreaterThanOrEqual(levels);
  });

  it("ordinary code reads shallow; brackets in strings, comments, regexes and templates cost nothing", () => {
    expect(nestingDepth(ORDINARY)).toBeLessThan(20);
    const quoted = "(".repeat(100_000);
    for (const code of [`const s = "${quoted}"`, `const s = '${quoted}'`, `const s = \`${quoted}\``, `// ${quoted}\nx = 1`, `/* ${quoted} */`, `const r = /${"\\(".repeat(50_000)}/`, `const r = /[${quoted}]/`]) {
      expect(nestingDepth(code), code.slice(0, 30)).toBeLessThan(5);
    }
  });

  it("statements side by side do not add up: semicolon-free lines, switch cases, if/else statements, object keys, chained calls", () => {
    const many = (line: string) => line.repeat(5000);
    expect(nestingDepth(many("const a = b ? c : d\n"))).toBeLessThan(10);
    expect(nestingDepth(many("export const f = (x: number): number => {\n  return x\n}\n"))).toBeLessThan(10);
    expect(nestingDepth("switch (x) {\n" + many("case 1:\n") + "}")).toBeLessThan(10);
    expect(nestingDepth(many("if (a) { b() } else { c() }\n"))).toBeLessThan(10);
    expect(nestingDepth(many("if (a) b(); else if (c) d(); else e();\n"))).toBeLessThan(10);
    expect(nestingDepth("const o = {" + many("a: 1, ") + "}")).toBeLessThan(10);
    expect(nestingDepth(many("p = p.then((v) => v + 1).catch(() => 0);\n"))).toBeLessThan(10);
    expect(nestingDepth(many("x = a + b - c * d / e < f > g && h || i ?? j\n"))).toBeLessThan(10);
    // Minified lookup tables compare hundreds of times in one expression (consola's east-Asian width table).
    expect(nestingDepth("w=function(D){return " + many("10102<=D&&D<=10111||D==65533||D>=1<<3||") + "0?\"A\":\"N\"}")).toBeLessThan(10);
  });

  it("lists do not nest: an array's items, an object's keys, a call's arguments, imports, exports and declarations", () => {
    const items = (item: (i: number) => string) => Array.from({ length: 10_000 }, (_, i) => item(i)).join(", ");
    expect(nestingDepth(`const PRIMES = [${items((i) => String(i))}]`)).toBeLessThan(5);
    expect(nestingDepth(`const TABLE = { ${items((i) => `"k${i}": [${i}, "v"]`)} }`)).toBeLessThan(5);
    expect(nestingDepth(`export default [${items((i) => `["${i}", ${i}]`)}]`)).toBeLessThan(5);
    expect(nestingDepth(`console.log(${items((i) => `a${i}`)})`)).toBeLessThan(5);
    expect(nestingDepth(`import { ${items((i) => `type T${i}`)} } from "./types"\nexport { ${items((i) => `a${i}`)} }`)).toBeLessThan(5);
    expect(nestingDepth(`const { ${items((i) => `a${i}`)} } = o; let ${items((i) => `b${i} = ${i}`)}; var [${items((i) => `c${i}`)}] = xs`)).toBeLessThan(5);
  });

  it("this project's own sources read under 200 levels (the deepest, 107, a chain of 50 .option() calls)", () => {
    const files = readdirSync("src", { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(100);
    for (const file of files) expect(nestingDepth(readFileSync(join("src", file), "utf8")), file).toBeLessThan(200);
  });

  it("stops reading past the limit it is given", () => {
    expect(nestingDepth("(".repeat(300_000), 1000)).toBe(1001);
    expect(nestingDepth("(".repeat(300_000))).toBe(300_000);
  });
});
