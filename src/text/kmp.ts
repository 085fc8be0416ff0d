/**
 * Knuth–Morris–Pratt matching: it never steps back in the text, so a search stays linear in the
 * two lengths whatever the strings (a policy's or a client's text can be chosen to make a naive
 * search quadratic). UTF-16 code units, as `indexOf` and `endsWith` count.
 */

/**
 * The failure function of `pattern`: at each position i, the length of the longest proper prefix
 * of `pattern.slice(0, i + 1)` that is also its suffix.
 */
export function failureFunction(pattern: string): Int32Array {
  const border = new Int32Array(pattern.length);
  for (let i = 1, k = 0; i < pattern.length; i++) {
    while (k > 0 && pattern.charCodeAt(i) !== pattern.charCodeAt(k)) k = border[k - 1];
    if (pattern.charCodeAt(i) === pattern.charCodeAt(k)) k++;
    border[i] = k;
  }
  return border;
}

/**
 * One step of a match: how much of `pattern` (non-empty, `border` its failure function) is matched
 * after reading the code unit `unit`, given `matched` before it. After a whole match the next
 * step goes on from its border, so overlapping occurrences are all seen.
 * @example let k = 0; for (const u of units) if ((k = kmpStep(p, border, k, u)) === p.length) found();
 */
export function kmpStep(pattern: string, border: Int32Array, matched: number, unit: number): number {
  let k = matched === pattern.length ? border[matched - 1] : matched;
  while (k > 0 && unit !== pattern.charCodeAt(k)) k = border[k - 1];
  return unit === pattern.charCodeAt(k) ? k + 1 : k;
}
