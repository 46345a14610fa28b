import type { JsonSchema } from './tool-types.js';
import { searchTerms } from './tool-search-tokens.js';

/** A tool as the search index reads it (a catalog entry fits). */
export interface SearchableTool {
  /** The model-facing name. */
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly info?: { readonly originalName?: string | undefined };
}

/** One search hit: the tool and its score (higher is better). */
export interface ToolSearchHit {
  readonly tool: SearchableTool;
  readonly score: number;
}

/**
 * How much a term counts in each field (BM25F): a word of the name says most about a tool,
 * then its parameter names, its description, and last its parameters' descriptions.
 */
const FIELD_WEIGHTS = { name: 3, params: 1.5, description: 1, paramText: 0.6 } as const;
type Field = keyof typeof FIELD_WEIGHTS;
const FIELDS = Object.keys(FIELD_WEIGHTS) as Field[];
const K1 = 1.2;
const B = 0.75;
/** Parameters read per schema (nested objects and array items included), at most. */
const MAX_PARAMS = 64;
/** Characters of a name and description a regex is matched against, at most. */
export const REGEX_INPUT_CHARS = 2048;

/**
 * A ranked search over tools (BM25F over four fields: name words, parameter names,
 * description, parameter descriptions), with light normalization: lowercase, camelCase and
 * `_`/`-`/`__` splitting, stop words left out, plurals and `-ing`/`-ed` folded. Built once
 * from a fixed list of tools; searching does not change it.
 *
 * @example
 * ```ts
 * const index = new ToolSearchIndex(catalog.visibleEntries());
 * index.search('download invoices as a spreadsheet', 5); // [{ tool, score }, ...]
 * ```
 */
export class ToolSearchIndex {
  readonly #tools: readonly SearchableTool[];
  /** term -> [tool index, BM25F pseudo-frequency] */
  readonly #postings = new Map<string, [number, number][]>();
  #regexTexts: string[] | undefined;

  constructor(tools: readonly SearchableTool[]) {
    this.#tools = tools;
    const fields = tools.map(fieldTerms);
    const avg = averageLengths(fields);
    for (const [doc, terms] of fields.entries()) {
      const weighted = new Map<string, number>();
      for (const field of FIELDS) {
        const list = terms[field];
        const norm = 1 - B + (B * list.length) / (avg[field] || 1);
        for (const term of list)
          weighted.set(term, (weighted.get(term) ?? 0) + FIELD_WEIGHTS[field] / norm);
      }
      for (const [term, tf] of weighted) {
        let posting = this.#postings.get(term);
        if (!posting) this.#postings.set(term, (posting = []));
        posting.push([doc, tf]);
      }
    }
  }

  /** How many tools the index holds. */
  get size(): number {
    return this.#tools.length;
  }

  /** The best `limit` tools for a query in words, best first (ties in listing order). */
  search(query: string, limit: number): ToolSearchHit[] {
    const n = this.#tools.length;
    const scores = new Map<number, number>();
    for (const term of new Set(searchTerms(query))) {
      const posting = this.#postings.get(term);
      if (!posting) continue;
      const idf = Math.log(1 + (n - posting.length + 0.5) / (posting.length + 0.5));
      for (const [doc, tf] of posting)
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (K1 + 1)) / (tf + K1));
    }
    return [...scores]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, limit)
      .map(([doc, score]) => ({ tool: this.#tools[doc]!, score }));
  }

  /**
   * What a regex is matched against, one text per tool: `name\ndescription`, cut to
   * {@link REGEX_INPUT_CHARS} characters.
   */
  regexTexts(): readonly string[] {
    this.#regexTexts ??= this.#tools.map((t) =>
      `${t.name}\n${t.description ?? ''}`.slice(0, REGEX_INPUT_CHARS),
    );
    return this.#regexTexts;
  }

  /** The tool at a position of {@link regexTexts}. */
  at(position: number): SearchableTool | undefined {
    return this.#tools[position];
  }
}

type FieldTerms = Record<Field, string[]>;

function fieldTerms(tool: SearchableTool): FieldTerms {
  const params: string[] = [];
  const paramText: string[] = [];
  collectParams(tool.inputSchema, params, paramText, 0);
  const original = tool.info?.originalName;
  const name = tool.name.startsWith('mcp__') ? tool.name.slice('mcp__'.length) : tool.name;
  return {
    name: searchTerms(
      original !== undefined && !name.endsWith(original) ? `${name} ${original}` : name,
    ),
    params: searchTerms(params.join(' ')),
    description: searchTerms(tool.description ?? ''),
    paramText: searchTerms(paramText.join(' ')),
  };
}

/** Parameter names and descriptions of a schema: its properties, nested objects and array items. */
function collectParams(schema: unknown, names: string[], texts: string[], depth: number): void {
  if (depth > 2 || typeof schema !== 'object' || schema === null) return;
  const s = schema as { properties?: unknown; items?: unknown };
  if (typeof s.properties === 'object' && s.properties !== null) {
    for (const [key, value] of Object.entries(s.properties as Record<string, unknown>)) {
      if (names.length >= MAX_PARAMS) return;
      names.push(key);
      const description = (value as { description?: unknown } | null)?.description;
      if (typeof description === 'string') texts.push(description);
      collectParams(value, names, texts, depth + 1);
    }
  }
  if (s.items !== undefined) collectParams(s.items, names, texts, depth + 1);
}

function averageLengths(fields: readonly FieldTerms[]): Record<Field, number> {
  const avg = { name: 0, params: 0, description: 0, paramText: 0 };
  for (const f of fields) for (const field of FIELDS) avg[field] += f[field].length;
  for (const field of FIELDS) avg[field] /= Math.max(1, fields.length);
  return avg;
}
