// String order by Unicode code point, as Python's `<` on str orders them (lone surrogates are
// code points of their own) and as the strings' UTF-8 bytes sort (git's order): never by
// locale, so the same data sorts the same under any LANG or LC_ALL. No imports.

/** Negative, zero or positive as `a` sorts before, with or after `b` by code point. */
export function compareCodePoints(a: string, b: string): number {
  // Equal UTF-16 units are equal code points; the first difference is read from the code point
  // it belongs to (one back when the unit before is a high surrogate both strings share).
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i > 0 && isHighSurrogate(a.charCodeAt(i - 1))) i--;
  let j = i;
  while (i < a.length && j < b.length) {
    const ca = a.codePointAt(i)!;
    const cb = b.codePointAt(j)!;
    if (ca !== cb) return ca < cb ? -1 : 1;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  const restA = a.length - i;
  const restB = b.length - j;
  return restA === restB ? 0 : restA < restB ? -1 : 1;
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit < 0xdc00;
}
