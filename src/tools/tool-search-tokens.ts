// Turning tool names, descriptions and search queries into search terms. The same steps run on
// both sides, so what matters is that they agree, not that the stems are real words.

/** Words too common in tool definitions and requests to tell tools apart. */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and any are as at be by can do does for from get give has have how i in into is it ' +
    'its me my need of on one or our so some than that the their them then there these this ' +
    'those to use used uses using want was we what when where which who will with you your'
  ).split(' '),
);

/**
 * Splits an identifier or text into lowercase words: at `__`, `_`, `-`, `.`, `/`, spaces and
 * other non-alphanumerics, and at camelCase boundaries (`listCalendarEvents` -> list,
 * calendar, events; `HTTPServer` -> http, server).
 */
export function splitWords(text: string): string[] {
  const spaced = text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase();
  return spaced.split(/[^a-z0-9]+/).filter((w) => w.length > 0);
}

/**
 * A light stem: plurals folded (`invoices` -> `invoic`, `entries` -> `entri`), `-ing` and
 * `-ed` dropped, a final `e` dropped, so `create`, `creates`, `created` and `creating` meet.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = undouble(w.slice(0, -3));
  else if (w.length > 4 && w.endsWith('ed')) w = undouble(w.slice(0, -2));
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  if (w.length > 3 && w.endsWith('y')) w = `${w.slice(0, -1)}i`;
  return w;
}

/** `runn` -> `run`, `stopp` -> `stop` (but `pass`, `fill` stay). */
function undouble(w: string): string {
  const n = w.length;
  if (n > 2 && w[n - 1] === w[n - 2] && !/[lsz]/.test(w[n - 1]!)) return w.slice(0, -1);
  return w;
}

/** Stems already computed (a catalog's vocabulary is small); cleared when it grows too large. */
const stems = new Map<string, string>();
const MAX_STEMS = 50_000;

/** The search terms of a text: its words, stop words left out, each stemmed. */
export function searchTerms(text: string): string[] {
  const terms: string[] = [];
  for (const word of splitWords(text)) {
    if (STOP_WORDS.has(word)) continue;
    let stemmed = stems.get(word);
    if (stemmed === undefined) {
      if (stems.size >= MAX_STEMS) stems.clear();
      stemmed = stem(word);
      stems.set(word, stemmed);
    }
    terms.push(stemmed);
  }
  return terms;
}
