import { shownText, undisguisedText } from "../text/markup.js";

/**
 * Work the checks of one sample share while it is scored (score.ts makes one per sample, and
 * drops it with the sample): a text that each criterion of a kind transforms the same way
 * (`contains` folds it as a reader sees it, `equals` normalizes it) is transformed once, and a
 * non-string input a check reads is turned into JSON once. Before, 64 `contains` criteria on a
 * 1 MB response folded it 64 times, and each check stringified an object input anew.
 */
export class CheckMemo {
  private readonly transformed = new Map<string, Map<string, string>>();
  private readonly json = new Map<unknown, string>();

  /** `transform(text)`, computed once per `name` and text. */
  text(name: string, text: string, transform: (text: string) => string): string {
    let byText = this.transformed.get(name);
    if (!byText) this.transformed.set(name, (byText = new Map()));
    let out = byText.get(text);
    if (out === undefined) byText.set(text, (out = transform(text)));
    return out;
  }

  /** The JSON of a value a check reads as its text, computed once per value. */
  jsonOf(value: unknown): string {
    let out = this.json.get(value);
    if (out === undefined) this.json.set(value, (out = JSON.stringify(value)));
    return out;
  }
}

/** `transform(text)`: once per sample with a memo (`CheckMemo.text`), else now. */
export function onceWith(memo: CheckMemo | undefined, name: string, text: string, transform: (text: string) => string): string {
  return memo ? memo.text(name, text, transform) : transform(text);
}

/** The text as a page shows it (text/markup.ts `shownText`), read once per sample: what the string kinds, `similarity` and a `length` min read. */
export const shownOnce = (text: string, memo?: CheckMemo): string => onceWith(memo, "shown", text, shownText);

/** The text less what a page hides or disguises (text/markup.ts `undisguisedText`), read once per sample: what `regex` and the answer kinds read. */
export const undisguisedOnce = (text: string, memo?: CheckMemo): string => onceWith(memo, "undisguised", text, undisguisedText);
