/**
 * Degenerate JavaScript a policy can write (repeated brackets, signs, `a?b:`, `.b`, `a,`), each
 * nesting far past any real solution. Measured with esbuild 0.27 on a 2-core VM, through its API on
 * the calling thread: `parens 20,000` held it 163 ms, `[ 120,000` 574 ms, `a?b: 120,000` 675 ms,
 * `.b 100,000` 590 ms; from ~100,000–200,000 levels esbuild's stack overflowed (1 GB) and its
 * process died; a comma sequence took it quadratic time (`a, 30,000`: 6.7 s).
 */
export const HOSTILE_CODE: { name: string; code: string; levels: number }[] = [
  { name: "parens 20,000", code: "x=" + "(".repeat(20_000) + "1" + ")".repeat(20_000), levels: 20_000 },
  { name: "parens 300,000", code: "x=" + "(".repeat(300_000) + "1" + ")".repeat(300_000), levels: 300_000 },
  { name: "[ 120,000", code: "x=" + "[".repeat(120_000), levels: 120_000 },
  { name: "[ 200,000", code: "x=" + "[".repeat(200_000), levels: 200_000 },
  { name: "{ blocks 300,000", code: "{".repeat(300_000) + "}".repeat(300_000), levels: 300_000 },
  { name: "${ 100,000", code: "x=" + "`${".repeat(100_000) + "1" + "}`".repeat(100_000), levels: 100_000 },
  { name: "! 200,000", code: "x=" + "!".repeat(200_000) + "1", levels: 200_000 },
  { name: "~ 200,000", code: "x=" + "~".repeat(200_000) + "1", levels: 200_000 },
  { name: "unary - 200,000", code: "x=" + "- ".repeat(200_000) + "1", levels: 200_000 },
  { name: "unary + on lines 200,000", code: "x=" + "+\n".repeat(200_000) + "1", levels: 200_000 },
  { name: "typeof 100,000", code: "x=" + "typeof ".repeat(100_000) + "1", levels: 100_000 },
  { name: "void 100,000", code: "x=" + "void ".repeat(100_000) + "1", levels: 100_000 },
  { name: "await 100,000", code: "async function f(){x=" + "await ".repeat(100_000) + "1}", levels: 100_000 },
  { name: "new 100,000", code: "x=" + "new ".repeat(100_000) + "X", levels: 100_000 },
  { name: "a?b: 120,000", code: "x=" + "a?b:".repeat(120_000) + "c", levels: 120_000 },
  { name: "a?b: 200,000", code: "x=" + "a?b:".repeat(200_000) + "c", levels: 200_000 },
  { name: "a?b: a line each 200,000", code: "x=" + "a?b:\n".repeat(200_000) + "c", levels: 200_000 },
  { name: "a\\n?b\\n: 100,000", code: "x=a" + "\n? b\n: a".repeat(100_000), levels: 100_000 },
  { name: "a=> 100,000", code: "x=" + "a=>".repeat(100_000) + "1", levels: 100_000 },
  { name: "a= 300,000", code: "a=".repeat(300_000) + "1", levels: 300_000 },
  { name: "a** 100,000", code: "x=" + "a**".repeat(100_000) + "1", levels: 100_000 },
  { name: "labels a: 60,000", code: "a:".repeat(60_000) + "1", levels: 60_000 },
  { name: ".b 200,000", code: "x=a" + ".b".repeat(200_000), levels: 200_000 },
  { name: ".b on lines 100,000", code: "x=a" + "\n  .b".repeat(100_000), levels: 100_000 },
  { name: "?.b 200,000", code: "x=a" + "?.b".repeat(200_000), levels: 200_000 },
  { name: "calls () 200,000", code: "x=a" + "()".repeat(200_000), levels: 200_000 },
  { name: "index [0] 200,000", code: "x=a" + "[0]".repeat(200_000), levels: 200_000 },
  { name: "tagged `x` 200,000", code: "x=a" + "`x`".repeat(200_000), levels: 200_000 },
  { name: "a, in parens 30,000", code: "x=(" + "a,".repeat(30_000) + "1)", levels: 30_000 },
  { name: "a, at the top 30,000", code: "a,".repeat(30_000) + "1", levels: 30_000 },
  { name: "else if 80,000", code: "if(a)b;else ".repeat(80_000) + "c", levels: 80_000 },
  { name: "else if in blocks 40,000", code: "if (a) {\n  b()\n} else ".repeat(40_000) + "{}", levels: 40_000 },
];
