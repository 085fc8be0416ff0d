/**
 * Reading and comparing two formulas: the work the `math` check does under its time limit, in the
 * worker of src/checks/math/guarded-compare.ts (untrusted text through the parser and mathjs).
 */
import { sameValue, type CompareOptions } from "./compare.js";
import { decimalCommaReading, readAnswer, type MathValue } from "./read.js";

/** How a comma between digits reads: "auto" takes "12,5" as 12.5 when the other side is one number. */
export type DecimalComma = "auto" | "always" | "never";

/** One comparison, as posted to the worker: the two answers as written and how to compare them. */
export interface CompareRequest {
  answer: string;
  reference: string;
  options: CompareOptions;
  decimalComma: DecimalComma;
}

/** Whether the request's answer equals its reference (throws only on a defect of the reader, not on any text). */
export function compareRequest({ answer, reference, options, decimalComma }: CompareRequest): boolean {
  let expected = readReference(reference);
  let got = readAnswer(answer);
  // "1,22" against "1.22": a decimal comma, read so only when the other side is one number (or when asked).
  if (decimalComma !== "never") {
    const expectedDecimal = decimalCommaReading(reference);
    const gotDecimal = decimalCommaReading(answer);
    if (expectedDecimal && (decimalComma === "always" || isSingle(got))) expected = expectedDecimal;
    if (gotDecimal && (decimalComma === "always" || isSingle(expected))) got = gotDecimal;
  }
  return sameValue(got, expected, options);
}

/** Read references, cached: in training a prompt's reference recurs for each of its k responses. */
const references = new Map<string, MathValue>();
const REFERENCES_LIMIT = 5000;

function readReference(reference: string): MathValue {
  let value = references.get(reference);
  if (value === undefined) {
    value = readAnswer(reference);
    if (references.size >= REFERENCES_LIMIT) references.delete(references.keys().next().value!);
    references.set(reference, value);
  }
  return value;
}

const isSingle = (value: MathValue): boolean => value.kind === "expr" || (value.kind === "named" && isSingle(value.value));
