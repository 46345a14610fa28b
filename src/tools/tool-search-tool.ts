import { ToolError } from '../errors/index.js';
import { OWN_EXECUTOR_FACTS } from './executor-facts.js';
import type { OwnExecutor, OwnExecutorFacts } from './executor-facts.js';
import { searchIndexFor } from './tool-search-cache.js';
import type { ToolSearchIndex } from './tool-search-index.js';
import type { SearchableTool } from './tool-search-index.js';
import {
  compileSearchRegex,
  MAX_REGEX_PATTERN_LENGTH,
  RegexTimeBudget,
} from './tool-search-regex.js';
import type { ToolDefinition, ToolExecutor, ToolInfo } from './tool-types.js';

/** The model-facing name of the built-in tool that searches a large catalog. */
export const TOOL_SEARCH_TOOL_NAME = 'tool_search';
/** How many tools one search returns when the model gives no `limit`. */
export const TOOL_SEARCH_DEFAULT_LIMIT = 5;
/** The most tools one search may return. */
export const TOOL_SEARCH_MAX_LIMIT = 20;
/** The longest query accepted, in characters. */
const MAX_QUERY_LENGTH = 500;
/** The longest one-line description in a result, in characters. */
const LINE_DESCRIPTION_CHARS = 160;

/** The definition of the `tool_search` tool, as {@link ToolSearchExecutor} lists it. */
export const TOOL_SEARCH_TOOL_DEFINITION: ToolDefinition = Object.freeze({
  name: TOOL_SEARCH_TOOL_NAME,
  description:
    'Finds tools by describing what you want to do. Many tools are available but not shown; ' +
    'search them by task words, parameter names or a name part (mode "bm25", the default), ' +
    'or by a JavaScript regular expression over names and descriptions (mode "regex", ' +
    'case-insensitive). The tools found are added to your tools from your next turn on; then ' +
    'call them by name.',
  inputSchema: Object.freeze({
    type: 'object',
    properties: Object.freeze({
      query: Object.freeze({
        type: 'string',
        minLength: 1,
        maxLength: MAX_QUERY_LENGTH,
        description:
          'What the tool should do, in words (e.g. "send an invoice reminder by email"), or a regex in mode "regex".',
      }),
      mode: Object.freeze({
        type: 'string',
        enum: Object.freeze(['bm25', 'regex']),
        default: 'bm25',
        description: '"bm25" (ranked word search, the default) or "regex".',
      }),
      limit: Object.freeze({
        type: 'integer',
        minimum: 1,
        maximum: TOOL_SEARCH_MAX_LIMIT,
        default: TOOL_SEARCH_DEFAULT_LIMIT,
        description: `How many tools to return, at most. Default ${TOOL_SEARCH_DEFAULT_LIMIT}.`,
      }),
    }),
    required: Object.freeze(['query']),
    additionalProperties: false,
  }),
  annotations: Object.freeze({ readOnlyHint: true, title: 'Search the tool catalog' }),
});

const BUILTIN_INFO: ToolInfo = Object.freeze({ source: 'builtin' });

/** What became of the tools a search found: which were not loaded, for the budget. */
export interface ToolSearchLoad {
  /** Found tools whose definitions were not added, as the shown tools would pass the budget. */
  readonly notLoaded: readonly string[];
  /** The budget the shown MCP definitions stay within, in estimated tokens. */
  readonly budgetTokens: number;
}

/** What {@link ToolSearchExecutor} searches and whom it tells what it found. */
export interface ToolSearchExecutorOptions {
  /**
   * The tools that can be found (read on the first search, then indexed once; an equal
   * snapshot of an earlier run reuses that run's index).
   */
  readonly tools: () => readonly SearchableTool[];
  /**
   * Called with the names a search found, before its result is returned; may say which were
   * not loaded (the result then lists them apart).
   */
  readonly onFound: (names: readonly string[]) => ToolSearchLoad | void;
  /**
   * The regex time of the executor's run (a new budget per executor when not given; the agent
   * makes one executor per run).
   */
  readonly regexBudget?: RegexTimeBudget;
}

/** What the model asks `tool_search` for (already checked against the input schema). */
interface ToolSearchInput {
  readonly query: string;
  readonly mode?: 'bm25' | 'regex';
  readonly limit?: number;
}

/**
 * Offers the built-in `tool_search` tool (SPEC 4, large catalogs): a ranked word search
 * ({@link ToolSearchIndex}) or a bounded regex scan over the tools it is given. It only
 * reports what it found; which definitions the model is shown is the caller's (`onFound`).
 */
export class ToolSearchExecutor implements ToolExecutor, OwnExecutor {
  /** A search only reads its arguments: it gets the run's parsed value itself. */
  readonly [OWN_EXECUTOR_FACTS]: OwnExecutorFacts = { readsInputOnly: true };
  readonly #options: ToolSearchExecutorOptions;
  readonly #regexBudget: RegexTimeBudget;
  #index: ToolSearchIndex | undefined;

  constructor(options: ToolSearchExecutorOptions) {
    this.#options = options;
    this.#regexBudget = options.regexBudget ?? new RegexTimeBudget();
  }

  /** The tools this executor offers now. Called once per run to fix that run's catalog. */
  listTools(): readonly ToolDefinition[] {
    return [TOOL_SEARCH_TOOL_DEFINITION];
  }

  /** Safe facts about one tool; defaults to `{ source: 'executor' }`. */
  getToolInfo(name: string): ToolInfo | undefined {
    return name === TOOL_SEARCH_TOOL_NAME ? BUILTIN_INFO : undefined;
  }

  /** Runs one call whose arguments already passed validation and policy. */
  async execute(name: string, input: Record<string, unknown>): Promise<string> {
    if (name !== TOOL_SEARCH_TOOL_NAME) {
      throw new ToolError(
        'TOOL_NOT_FOUND',
        `This executor offers only '${TOOL_SEARCH_TOOL_NAME}'.`,
        {
          toolName: name,
        },
      );
    }
    const {
      query,
      mode = 'bm25',
      limit = TOOL_SEARCH_DEFAULT_LIMIT,
    } = input as unknown as ToolSearchInput;
    const found = mode === 'regex' ? await this.#regex(query, limit) : this.#bm25(query, limit);
    const load = this.#options.onFound(found.map((t) => t.name));
    return formatFound(query, found, load);
  }

  #indexed(): ToolSearchIndex {
    this.#index ??= searchIndexFor(this.#options.tools());
    return this.#index;
  }

  #bm25(query: string, limit: number): SearchableTool[] {
    return this.#indexed()
      .search(query, limit)
      .map((hit) => hit.tool);
  }

  async #regex(pattern: string, limit: number): Promise<SearchableTool[]> {
    const check = compileSearchRegex(pattern);
    if (!check.ok) {
      throw new ToolError(
        'TOOL_ARGUMENTS_INVALID',
        `The regex ${JSON.stringify(pattern.slice(0, MAX_REGEX_PATTERN_LENGTH))} ${check.reason}: use a simpler pattern, or mode "bm25" with words.`,
        { toolName: TOOL_SEARCH_TOOL_NAME },
      );
    }
    const index = this.#indexed();
    const positions = await this.#regexBudget.scan(check.regex, index.regexTexts(), limit);
    if (positions === 'spent') {
      throw new ToolError(
        'TOOL_ARGUMENTS_INVALID',
        `Regex searches have used up their time for this run (${this.#regexBudget.totalMs} ms): use mode "bm25" (ranked word search) instead.`,
        { toolName: TOOL_SEARCH_TOOL_NAME },
      );
    }
    if (positions === 'timeout') {
      throw new ToolError(
        'TOOL_ARGUMENTS_INVALID',
        'The regex took too long to run over the catalog: use a simpler pattern, or mode "bm25" with words.',
        { toolName: TOOL_SEARCH_TOOL_NAME },
      );
    }
    return positions.map((p) => index.at(p)!);
  }
}

/** The line that opens a result with tools, and the prefix of each tool's line. */
const FOUND_LINE = '- ';

function formatFound(
  query: string,
  found: readonly SearchableTool[],
  load: ToolSearchLoad | void,
): string {
  if (found.length === 0) {
    return `No tools matched ${JSON.stringify(query)}. Try other words (what the tool does, its parameters), or mode "regex".`;
  }
  const skipped = new Set(load?.notLoaded ?? []);
  const line = (t: SearchableTool, note: string) =>
    `${FOUND_LINE}${t.name}${note}: ${oneLine(t.description ?? '')}`;
  const lines = found.filter((t) => !skipped.has(t.name)).map((t) => line(t, ''));
  const head = `Found ${found.length} tool${found.length === 1 ? '' : 's'} for ${JSON.stringify(query)}.`;
  if (skipped.size === 0) {
    return [
      `${head} Their definitions are available from your next turn on; call them by name then.`,
      ...lines,
    ].join('\n');
  }
  return [
    lines.length > 0
      ? `${head} These definitions are available from your next turn on; call them by name then.`
      : head,
    ...lines,
    `Not loaded, as the tools shown would pass their budget of ${load!.budgetTokens} tokens: you may still call these by name if you know their arguments (a wrong argument comes back as an error).`,
    ...found.filter((t) => skipped.has(t.name)).map((t) => line(t, ' (not loaded)')),
  ].join('\n');
}

function oneLine(description: string): string {
  const line = description.replace(/\s+/g, ' ').trim();
  return line.length > LINE_DESCRIPTION_CHARS
    ? `${line.slice(0, LINE_DESCRIPTION_CHARS - 1)}…`
    : line;
}

/**
 * The tool names a `tool_search` result lists (what a continued session restores as found);
 * the caller keeps only names its catalog has.
 */
export function foundToolNames(resultText: string): string[] {
  const names: string[] = [];
  for (const line of resultText.split('\n')) {
    const m = /^- ([A-Za-z0-9_-]{1,64}): /.exec(line);
    if (m) names.push(m[1]!);
  }
  return names;
}
