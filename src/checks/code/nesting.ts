/**
 * How deeply a JavaScript or TypeScript text nests, read in one linear pass before esbuild parses
 * it. esbuild's parser and printer recurse once per level, so a degenerate response of repeated
 * brackets, `!` signs, `a?b:` or `.b` held esbuild for seconds, and past ~100,000–200,000 levels
 * overflowed its stack (1 GB, then the process died); a comma sequence (`a,a,a,…`) took it
 * quadratic time (30,000 commas: 6.7 s). Real code nests a few dozen levels.
 *
 * What counts as a level:
 * - each open bracket: `(`, `[`, `{`, a template's `${`;
 * - each prefix operator of an unbroken run: `!`, `~`, unary `+`/`-`, `typeof`, `void`, `delete`,
 *   `await`, `new`, `yield`;
 * - each postfix step of one operand: `.name`, `?.`, a call's `(`, an index's `[`, a tag's template;
 * - each right-nesting operator of one expression: `?`, `:`, `=` and the assignments, `=>`, `**`
 *   (until a `,`);
 * - each comma of a sequence: in parentheses that are no call, an index, a template's `${}`, a
 *   block or the top level (a call's arguments, an array's items and an object's keys are lists);
 * - each `else if` of a chain, until an `if` that follows no `else`.
 * Chains and sequences end at a `;`, a `case`, the bracket's close, or a line break followed by
 * what starts a statement. Comparisons (`<`, `<=`, TypeScript's generics) and other binary
 * operators do not count: esbuild reads them without recursing. Strings, comments, templates and
 * regex literals are skipped, so a solution's `"(((("` costs nothing.
 *
 * Approximate where JavaScript's grammar needs a parser: a `/` is read as a regex where an operand
 * cannot end before it (after `)`, `]` or `}` it divides, so `if (x) /re/.test(s)` reads its regex
 * as code); a `{` is a block after an operand (but `import`, `export`, `type`, `const`, `let`,
 * `var`), `;`, `{`, `}`, `=>` or `else`/`do`/`try`/`finally`, else an object (a TypeScript `enum`'s
 * or `interface`'s members count as a sequence); an expression that goes on past a line break onto a line starting with a name
 * counts afresh. In real code these misreadings move a few levels, not thousands; code crafted to
 * hide its depth (a `/` after a variable named `of`) still meets esbuild in a process of its own
 * (compile.ts), where it can only fail itself.
 */

/** Words that apply to the operand after them, each one level deeper. */
const PREFIX_WORDS = new Set(["typeof", "void", "delete", "await", "new", "yield"]);

/** Words after which an operand starts (so a `/` begins a regex, a `+` is unary, a `{` an object). */
const OPERATOR_WORDS = new Set([...PREFIX_WORDS, "return", "throw", "case", "default", "do", "else", "in", "of", "instanceof", "extends"]);

/** Words after which a `{` opens a block, and words after which a `{` or `[` opens a list (`import {`, `const [`). */
const BLOCK_WORDS = new Set(["else", "do", "try", "finally"]);
const LIST_WORDS = new Set(["import", "export", "type", "const", "let", "var"]);

/** What a bracket opened; in the last four, commas separate a list's items instead of nesting. */
const GROUP = 0, INDEX = 1, BLOCK = 2, TEMPLATE = 3, CALL = 4, ARRAY = 5, OBJECT = 6;

interface Frame {
  kind: number;
  /** Right-nesting operators since the last comma or statement. */
  chain: number;
  /** Commas of a sequence since the last statement. */
  sequence: number;
  elseIfs: number;
  /** Postfix steps of the operand being read. */
  postfix: number;
  /** In a `var`, `let` or `const` statement: its commas separate declarations. */
  declaring: boolean;
}

const isWordChar = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36 || c === 92 || c >= 128;
const isDigit = (c: number) => c >= 48 && c <= 57;
const isLineBreak = (c: number) => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
const isSpace = (c: number) => c === 32 || c === 9 || c === 11 || c === 12 || c === 0xa0 || c === 0xfeff;
/** A token that begins a new statement when a line ends after an operand (ASI's usual case). */
const startsStatement = (c: number) => isWordChar(c) || c === 34 || c === 39 || c === 96;

/**
 * The deepest level the code reaches, by the reading above; once past `stopAbove`, the first level
 * past it (the rest is not read). Linear in the code's length: 1 MiB of dense code, ~20–50 ms on
 * the calling thread (a solution of a few KB, well under a millisecond).
 */
export function nestingDepth(code: string, stopAbove = Infinity): number {
  const n = code.length;
  // frames[0] is the top level; frames above `top` are kept for reuse.
  const frames: Frame[] = [{ kind: BLOCK, chain: 0, sequence: 0, elseIfs: 0, postfix: 0, declaring: false }];
  let top = 0;
  let frame = frames[0];
  let level = 0; // the open brackets and every count of every open frame
  let prefix = 0; // the current run of prefix operators
  let deepest = 0;
  let operand = false; // the last token can end an operand
  let lineBreak = false; // a line ended right after an operand
  let previous = ";"; // the last token, where it decides what a `{` or an `if` is ("" for the rest)

  const deeper = (by: number) => {
    if (level + prefix + by > deepest) deepest = level + prefix + by;
  };
  const count = (field: "chain" | "sequence" | "elseIfs" | "postfix") => {
    frame[field]++;
    level++;
    deeper(0);
  };
  const reset = (field: "chain" | "sequence" | "elseIfs" | "postfix") => {
    level -= frame[field];
    frame[field] = 0;
  };
  const endStatement = () => {
    frame.declaring = false;
    reset("chain");
    reset("sequence");
    reset("postfix");
  };
  const open = (kind: number) => {
    top++;
    if (top === frames.length) frames.push({ kind, chain: 0, sequence: 0, elseIfs: 0, postfix: 0, declaring: false });
    frame = frames[top];
    frame.kind = kind;
    frame.declaring = false;
    frame.chain = frame.sequence = frame.elseIfs = frame.postfix = 0;
    level++;
    deeper(0);
  };
  const close = () => {
    if (top === 0) return;
    level -= 1 + frame.chain + frame.sequence + frame.elseIfs + frame.postfix;
    frame = frames[--top];
  };
  /** Skips a template's text from `at`; returns where scanning goes on, opening a frame at `${`. */
  const template = (at: number): number => {
    for (let i = at; i < n; i++) {
      const c = code.charCodeAt(i);
      if (c === 92) i++;
      else if (c === 96) {
        operand = true;
        return i + 1;
      } else if (c === 36 && code.charCodeAt(i + 1) === 123) {
        open(TEMPLATE);
        operand = false;
        return i + 2;
      }
    }
    return n;
  };

  for (let i = 0; i < n; ) {
    const c = code.charCodeAt(i);
    if (isLineBreak(c)) {
      if (operand) lineBreak = true;
      i++;
      continue;
    }
    if (isSpace(c)) {
      i++;
      continue;
    }
    const next = code.charCodeAt(i + 1);
    if (c === 47 && next === 47) {
      while (i < n && !isLineBreak(code.charCodeAt(i))) i++;
      continue;
    }
    if (c === 47 && next === 42) {
      const end = code.indexOf("*/", i + 2);
      i = end < 0 ? n : end + 2;
      continue;
    }
    if (lineBreak) {
      lineBreak = false;
      if (startsStatement(c)) endStatement();
    }
    const afterDot = previous === ".";
    let token = "";
    let isPrefix = false;
    let continuesOperand = false;
    if (isDigit(c) || (c === 46 && isDigit(next))) {
      while (i < n && (isWordChar(code.charCodeAt(i)) || code.charCodeAt(i) === 46)) i++;
      operand = true;
    } else if (isWordChar(c)) {
      const start = i;
      while (i < n && isWordChar(code.charCodeAt(i))) i++;
      token = code.slice(start, i);
      if (afterDot) {
        continuesOperand = true; // a property's name, whatever word it is (`map.delete`)
        token = "";
      } else if (PREFIX_WORDS.has(token)) {
        isPrefix = true;
        deeper(1);
      } else if (token === "else" && /^\s*if(?![\w$\\\u0080-\uffff])/.test(code.slice(i, i + 64))) {
        count("elseIfs");
      } else if (token === "if" && previous !== "else") {
        reset("elseIfs");
      } else if (token === "case" || token === "default") {
        endStatement();
      } else if (token === "var" || token === "let" || token === "const") {
        frame.declaring = true;
      }
      operand = afterDot || !OPERATOR_WORDS.has(token);
    } else if (c === 34 || c === 39) {
      for (i++; i < n; i++) {
        const s = code.charCodeAt(i);
        if (s === 92) i++;
        else if (s === c || isLineBreak(s)) break;
      }
      i++;
      operand = true;
    } else if (c === 96) {
      if (operand) {
        continuesOperand = true;
        count("postfix");
      }
      i = template(i + 1);
    } else if (c === 40 || c === 91) {
      // After a name a `(` calls and a `[` indexes, but `const [a, b]` destructures.
      const postfix = operand && !(c === 91 && LIST_WORDS.has(previous));
      continuesOperand = postfix;
      if (postfix) count("postfix");
      open(c === 40 ? (postfix ? CALL : GROUP) : postfix ? INDEX : ARRAY);
      i++;
      operand = false;
    } else if (c === 123) {
      const block = (operand && !LIST_WORDS.has(previous)) || previous === ";" || previous === "{" || previous === "}" || previous === "=>" || BLOCK_WORDS.has(previous);
      open(block ? BLOCK : OBJECT);
      i++;
      operand = false;
      token = "{";
    } else if (c === 41 || c === 93 || c === 125) {
      continuesOperand = true; // the bracket's operand goes on (`f(x).y`); an outer one is untouched
      const resumesTemplate = c === 125 && frame.kind === TEMPLATE;
      close();
      i = resumesTemplate ? template(i + 1) : i + 1;
      if (!resumesTemplate) operand = true;
      if (c === 125) token = "}";
    } else if (c === 59) {
      endStatement();
      i++;
      operand = false;
      token = ";";
    } else if (c === 44) {
      reset("chain");
      if (frame.kind < CALL && !frame.declaring) count("sequence");
      i++;
      operand = false;
    } else if (c === 46 && next === 46) {
      i += 3; // a spread
      operand = false;
    } else if (c === 46 || (c === 63 && next === 46 && !isDigit(code.charCodeAt(i + 2)))) {
      continuesOperand = true;
      count("postfix");
      i += c === 46 ? 1 : 2;
      operand = false;
      token = ".";
    } else if (c === 63) {
      if (next === 63) i += 2; // `??` goes on at the same depth
      else {
        count("chain");
        i++;
      }
      operand = false;
    } else if (c === 61) {
      if (next === 61) while (code.charCodeAt(i) === 61) i++;
      else {
        count("chain");
        if (next === 62) token = "=>";
        i += next === 62 ? 2 : 1;
      }
      operand = false;
    } else if (c === 58) {
      count("chain");
      i++;
      operand = false;
    } else if (c === 60 || c === 62) {
      // Comparisons and shifts go on at the same depth; `<<=`, `>>=` and `>>>=` assign, and nest.
      const start = i;
      while (code.charCodeAt(i) === c) i++;
      if (code.charCodeAt(i) === 61) {
        if (i - start > 1) count("chain");
        i++;
      }
      operand = false;
    } else if (c === 42 && next === 42) {
      count("chain");
      i += 2;
      operand = false;
    } else if (c === 33 && next === 61) {
      for (i++; code.charCodeAt(i) === 61; ) i++;
      operand = false;
    } else if ((c === 33 || c === 126 || c === 43 || c === 45) && !operand) {
      isPrefix = true;
      deeper(1);
      i++;
    } else if ((c === 43 || c === 45) && next === c) {
      i += 2; // a postfix ++ or --
    } else if (c === 33) {
      continuesOperand = true; // TypeScript's non-null `x!`
      i++;
    } else if (c === 47 && !operand) {
      let inClass = false;
      for (i++; i < n; i++) {
        const r = code.charCodeAt(i);
        if (r === 92) i++;
        else if (isLineBreak(r)) break;
        else if (r === 91) inClass = true;
        else if (r === 93) inClass = false;
        else if (r === 47 && !inClass) break;
      }
      i++;
      operand = true;
    } else {
      i++;
      operand = false;
    }
    if (!continuesOperand) reset("postfix");
    prefix = isPrefix ? prefix + 1 : 0;
    previous = token;
    if (deepest > stopAbove) break;
  }
  return deepest;
}
