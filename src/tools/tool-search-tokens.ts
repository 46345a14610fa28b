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

/** Han, Hiragana, Katakana and Hangul: scripts written without spaces between words. */
const CJK =
  /[\p{Script_Extensions=Han}\p{Script_Extensions=Hiragana}\p{Script_Extensions=Katakana}\p{Script_Extensions=Hangul}]/u;
const CJK_RUNS =
  /[\p{Script_Extensions=Han}\p{Script_Extensions=Hiragana}\p{Script_Extensions=Katakana}\p{Script_Extensions=Hangul}]+|[^\p{Script_Extensions=Han}\p{Script_Extensions=Hiragana}\p{Script_Extensions=Katakana}\p{Script_Extensions=Hangul}]+/gu;

/**
 * Folds accents: NFKD, then combining marks dropped (`Überprüfung` -> `Uberprufung`), except
 * after CJK characters (a kana's voicing mark is part of the letter), then NFC again (so
 * Hangul stays in syllables); `ß` becomes `ss`.
 */
function foldAccents(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/(\P{M})(\p{M}+)/gu, (all, base: string) => (CJK.test(base) ? all : base))
    .normalize('NFC')
    .replace(/ß/g, 'ss');
}

/**
 * Splits an identifier or text into lowercase words: at `__`, `_`, `-`, `.`, `/`, spaces and
 * everything else that is not a letter or a digit (any script), and at camelCase boundaries
 * (`listCalendarEvents` -> list, calendar, events; `HTTPServer` -> http, server). Accents are
 * folded first (`für` -> `fur`). A run of CJK characters stays one word here.
 */
export function splitWords(text: string): string[] {
  const spaced = foldAccents(text)
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2')
    .toLowerCase();
  return spaced.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0);
}

/**
 * The pieces of a word: CJK runs become overlapping character bigrams (`电子邮件` -> 电子,
 * 子邮, 邮件; a lone character stays itself), the rest stays whole.
 */
function pieces(word: string): string[] {
  if (!CJK.test(word)) return [word];
  const out: string[] = [];
  for (const run of word.match(CJK_RUNS) ?? []) {
    if (!CJK.test(run)) {
      out.push(run);
      continue;
    }
    const chars = [...run];
    if (chars.length === 1) out.push(run);
    for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
  }
  return out;
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

/**
 * Words that name the same thing in tool definitions and requests, each group folded onto its
 * first word (after stemming, on both sides), so `reimburse a client` meets `refund a
 * customer`. Kept small and general: only pairs common across business tools.
 */
const SYNONYM_GROUPS: readonly string[] = [
  'customer client',
  'refund reimburse repay reimbursement',
  'invoice bill',
  'buy purchase',
  'delete erase',
  'cancel void',
  'email mail',
  'employee staff worker',
  'salary wage',
  'remind reminder nudge',
  'forecast predict prediction',
  'rain precipitation shower',
  'website site webpage',
  'meeting appointment',
  'postpone defer delay snooze',
  'prospect lead',
  'opportunity deal',
  'likely likelihood chance probability',
  'manager boss supervisor',
  'colleague coworker',
  'duplicate copy',
  'merge combine',
  'warning alert',
  'pollution smog',
  'price cost',
  'coupon voucher promo',
  'label tag',
  'spam junk',
  'reorder restock',
  'import upload',
  'export download',
  'reply answer respond',
  'picture image photo',
  'document doc',
];

/** stem -> the stem of its group's first word */
const SYNONYMS: ReadonlyMap<string, string> = new Map(
  SYNONYM_GROUPS.flatMap((group) => {
    const [head, ...rest] = group.split(' ').map(stem);
    return rest.map((w) => [w, head!] as const);
  }),
);

/** Stems already computed (a catalog's vocabulary is small); cleared when it grows too large. */
const stems = new Map<string, string>();
const MAX_STEMS = 50_000;

/**
 * The search terms of a text: its words, CJK runs as bigrams, stop words and one-letter
 * Latin words left out, each other word stemmed and folded onto its synonym group.
 */
export function searchTerms(text: string): string[] {
  const terms: string[] = [];
  for (const word of splitWords(text)) {
    for (const piece of pieces(word)) {
      if (STOP_WORDS.has(piece) || /^[a-z]$/.test(piece)) continue;
      if (CJK.test(piece)) {
        terms.push(piece);
        continue;
      }
      let stemmed = stems.get(piece);
      if (stemmed === undefined) {
        if (stems.size >= MAX_STEMS) stems.clear();
        stemmed = stem(piece);
        stemmed = SYNONYMS.get(stemmed) ?? stemmed;
        stems.set(piece, stemmed);
      }
      terms.push(stemmed);
    }
  }
  return terms;
}
