/**
 * Characters a reader does not see: Unicode's Default_Ignorable_Code_Point (zero-width space and
 * joiners, soft hyphen, bidi controls, variation selectors, the Hangul fillers) and the Braille
 * blank U+2800, which shows as a space but is not white space to `\s`. A policy can slip them
 * into a word to hide it from a string check, or fill a section with them to look non-empty.
 */
export const INVISIBLE_CLASS = String.raw`\p{Default_Ignorable_Code_Point}\u2800`;
export const INVISIBLE = new RegExp(`[${INVISIBLE_CLASS}]`, "gu");

/** The text without its invisible characters. */
export const stripInvisible = (text: string): string => text.replace(INVISIBLE, "");

/** True when the text shows nothing: only white space and invisible characters. */
export const isBlank = (text: string): boolean => stripInvisible(text).trim() === "";
