/**
 * Numbers as a reader of any script reads them, in ASCII: every decimal digit (Unicode's Nd) as
 * its value, the Arabic decimal and thousands separators as "." and ",", and thousands grouped by
 * a no-break or thin space as one number. The checks that read numbers (`number`, `math`,
 * `tool_calls`' answer_uses) all read them through asciiNumerals, so a number written one way
 * cannot be one value to one check and none to another.
 */

/** Decimal digits of every script but ASCII's: Arabic-Indic "٤٢", Devanagari "४२", full-width "４２", mathematical "𝟒𝟐". */
const OTHER_DIGITS = /[^\P{Nd}0-9]/gu;
const IS_DIGIT = /^\p{Nd}$/u;
const digitValues = new Map<string, string>();

/**
 * The ASCII digit a reader takes a decimal digit of another script for. Unicode encodes each
 * script's digits as a run of ten from its zero, runs back to back (the mathematical ones are five
 * such runs), so the value is the distance from the run's start, modulo 10.
 */
function asciiDigit(digit: string): string {
  let ascii = digitValues.get(digit);
  if (ascii === undefined) {
    const code = digit.codePointAt(0)!;
    let start = code;
    while (IS_DIGIT.test(String.fromCodePoint(start - 1))) start--;
    digitValues.set(digit, (ascii = String((code - start) % 10)));
  }
  return ascii;
}

/**
 * A no-break or thin space between a digit and a group of exactly three: thousands as SI and
 * French write them ("1 000", "1 000 000,5"). A plain space is not one: "3 000" may be 3 and 0.
 * One lookahead of fixed length per digit keeps the scan linear.
 */
const SPACED_THOUSANDS = /(\d)[\u00A0\u2009\u202F](?=\d{3}(?!\d))/g;

/**
 * The text with its numbers in ASCII: "٤٢" and "𝟒𝟐" as "42", "٣٫٥" as "3.5", "١٬٠٢٤" as "1,024",
 * "1 000" (a no-break space) as "1000". Everything else is left as written.
 * @example asciiNumerals("\\boxed{٤٢} and 1\u00A0000") // "\\boxed{42} and 1000"
 */
export function asciiNumerals(text: string): string {
  return (
    text
      .replace(OTHER_DIGITS, asciiDigit)
      // The Arabic decimal and thousands separators, as a reader of "٣٫٥" and "١٬٠٢٤" reads them.
      .replace(/\u066B/g, ".")
      .replace(/\u066C/g, ",")
      .replace(SPACED_THOUSANDS, "$1")
  );
}
