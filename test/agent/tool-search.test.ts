import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import type {
  Agent,
  AgentOptions,
  ModelClient,
  ModelRequest,
  ModelToolDefinition,
  ScriptedModel,
  ScriptedTurn,
  ToolResultMessage,
} from '../../src/index.js';
import {
  HIDDEN_CATALOG_TOOL,
  catalogServers,
  catalogSize,
  catalogToolName,
  catalogTools,
} from '../support/catalog-fixtures.js';
import { collect, ofType } from '../support/run-helpers.js';

// Tool search (SPEC 4, large catalogs) over 2,000 tools served by 10 real stdio servers.

const SEARCH = 'tool_search';
const TOTAL = catalogSize();
const HIDDEN = catalogToolName(HIDDEN_CATALOG_TOOL.domain, HIDDEN_CATALOG_TOOL.name);
const REFUND = 'mcp__billing__issue_refund';
/** The servers of the visibility and budget tests: fewer processes, the same rules. */
const VISIBILITY_DOMAINS = ['hr', 'crm', 'weather'];

/** A model whose turns each test scripts anew (one agent, and its servers, serves many tests). */
class ModelSwitch implements ModelClient {
  readonly specificationVersion = 'muster-model-v1' as const;
  readonly provider = 'switch';
  readonly defaultModelName = 'scripted';
  current: ScriptedModel = scriptedModel([]);

  use(turns: readonly ScriptedTurn[]): ScriptedModel {
    this.current = scriptedModel(turns);
    return this.current;
  }

  generate(...args: Parameters<ModelClient['generate']>) {
    return this.current.generate(...args);
  }
}

function catalogAgent(model: ModelSwitch, extra: Partial<AgentOptions> = {}): Agent {
  return createAgent({
    model,
    modelName: 'scripted',
    mcpServers: catalogServers(),
    policy: { default: 'allow' },
    limits: { maxToolCallsPerTurn: 64 },
    ...extra,
    mcp: { strictConfig: true, ...extra.mcp },
  });
}

const bytes = (tools: readonly ModelToolDefinition[]) =>
  Buffer.byteLength(JSON.stringify(tools), 'utf8');
const names = (req: ModelRequest) => req.tools.map((t) => t.name);
const toolResults = (req: ModelRequest) =>
  req.messages.filter((m): m is ToolResultMessage => m.role === 'tool');
const listed = (text: string) =>
  text.split('\n').flatMap((l) => {
    const name = /^- ([\w-]+): /.exec(l)?.[1];
    return name ? [name] : [];
  });

/** Every name a result lists, loaded or not (a ranking is judged on both). */
const ranked = (text: string) =>
  text.split('\n').flatMap((l) => {
    const name = /^- ([\w-]+)(?: \(not loaded\))?: /.exec(l)?.[1];
    return name ? [name] : [];
  });

/** Runs one tool_search per query in one turn and returns the names each one listed. */
async function searchAll(
  agent: Agent,
  model: ModelSwitch,
  queries: readonly { query: string; mode?: string; limit?: number }[],
): Promise<{ results: ToolResultMessage[]; model: ScriptedModel }> {
  let results: ToolResultMessage[] = [];
  const scripted = model.use([
    { toolCalls: queries.map((q) => ({ name: SEARCH, arguments: q })) },
    (req) => {
      results = toolResults(req);
      return { text: 'searched' };
    },
  ]);
  const { error } = await collect(agent.run({ input: 'find tools' }));
  expect(error).toBeUndefined();
  return { results, model: scripted };
}

// Queries written as a user describes a task: description words and parameter names, not the
// tool's name.
const CORPUS: readonly [string, string][] = [
  ['when is everyone available for a 30 minute meeting', 'mcp__calendar__find_free_slot'],
  ['reserve a room with enough seats for the team', 'mcp__calendar__book_conference_room'],
  ['automatic away reply while I am on vacation', 'mcp__calendar__set_out_of_office'],
  ['what time is it in Tokyo when it is 9am in Paris', 'mcp__calendar__convert_timezone'],
  ['public link to a file that expires after a week', 'mcp__files__generate_share_link'],
  ['go back to an earlier saved version of my document', 'mcp__files__revert_file_version'],
  ['read the text from a scanned PDF', 'mcp__files__extract_text_ocr'],
  ['how much disk space do I have left', 'mcp__files__storage_quota'],
  ['how likely is this prospect to buy', 'mcp__crm__score_lead'],
  [
    'predict revenue closing this quarter from open opportunities',
    'mcp__crm__forecast_pipeline_revenue',
  ],
  ['note why the customer cancelled', 'mcp__crm__record_churn_reason'],
  ['give the customer their money back for a charge', REFUND],
  ['remind a customer that their bill is overdue', 'mcp__billing__send_payment_reminder'],
  ['work out the VAT owed for a postal code', 'mcp__billing__calculate_sales_tax'],
  ['download all invoices as a spreadsheet', 'mcp__billing__export_invoice'],
  [
    'temperature and rain for the next days at latitude and longitude',
    'mcp__weather__get_forecast',
  ],
  ['how strong is the sun, risk of sunburn', 'mcp__weather__uv_index'],
  ['pollution level PM2.5 in the city', 'mcp__weather__air_quality_index'],
  ['send a mail later at a chosen time', 'mcp__email__schedule_send'],
  ['stop newsletters from a sender', 'mcp__email__unsubscribe_sender'],
  ['hide a conversation until tomorrow', 'mcp__email__snooze_conversation'],
  [
    'raise the urgency of an issue and notify the on-call manager',
    'mcp__tickets__escalate_priority',
  ],
  ['record the CSAT score the customer gave', 'mcp__tickets__rate_support_experience'],
  ['knowledge base answers for a customer problem', 'mcp__tickets__suggest_help_articles'],
  ['move units from one warehouse to another', 'mcp__inventory__transfer_between_warehouses'],
  ['lots whose best-before date is near', 'mcp__inventory__list_expiring_batches'],
  ['quantity_delta after a recount', 'mcp__inventory__adjust_stock_level'],
  ['is my A/B test result statistically significant', 'mcp__analytics__experiment_significance'],
  ['what share of users come back week after week', 'mcp__analytics__retention_cohorts'],
  ['ask for sick leave between two dates', 'mcp__hr__request_time_off'],
  ['hours_worked hourly_rate', 'mcp__hr__calculate_overtime_pay'],
  ['undo a deletion of a support ticket', 'mcp__tickets__restore_ticket'],
];

// The same tasks reworded: synonyms and paraphrase instead of the description's words, ranked
// against the 190 generic tools of each domain that share the entity words (near misses such
// as comment_reminder, get_customer, list_invoice). Requests that need knowledge the index does
// not have ("will it pour tomorrow" -> rain, "hay fever" -> pollen, "when does it get dark"
// -> sunset) are left out.
const REWORDED: readonly [string, string][] = [
  ['reimburse a client for a purchase', REFUND],
  ['void an invoice issued in error', 'mcp__billing__void_invoice'],
  ['swap the payment card of a client', 'mcp__billing__update_card_on_file'],
  ['decline an appointment request', 'mcp__calendar__respond_to_invitation'],
  ['flag a mail as junk', 'mcp__email__mark_as_spam'],
  ['postpone an email thread until monday', 'mcp__email__snooze_conversation'],
  ['answer everyone on a mail thread', 'mcp__email__reply_all'],
  ['restock products that are nearly gone', 'mcp__inventory__reorder_low_stock'],
  ['look up a product from its UPC', 'mcp__inventory__scan_barcode'],
  ['find outliers in a metric', 'mcp__analytics__detect_anomalies'],
  ['pay staff their salaries', 'mcp__hr__run_payroll'],
  ['annual appraisal of a worker', 'mcp__hr__record_performance_review'],
  ['who is the boss of whom', 'mcp__hr__org_chart'],
  ['chance a prospect converts', 'mcp__crm__score_lead'],
  ['deals nobody has followed up on', 'mcp__crm__list_stale_deals'],
  ['why did the client walk away', 'mcp__crm__record_churn_reason'],
  ['predict cash from deals this quarter', 'mcp__crm__forecast_pipeline_revenue'],
];

describe('tool search over 2,000 tools on 10 stdio servers', () => {
  const model = new ModelSwitch();
  const fullModel = new ModelSwitch();
  let agent: Agent;
  let full: Agent;
  let fullTools: readonly ModelToolDefinition[];

  beforeAll(async () => {
    agent = catalogAgent(model, { mcp: { exposeResources: true } });
    full = catalogAgent(fullModel, { mcp: { toolSearch: false } });
    const scripted = fullModel.use([{ text: 'all tools' }]);
    const { error } = await collect(full.run({ input: 'hi' }));
    expect(error).toBeUndefined();
    fullTools = scripted.requests[0]!.tools;
  }, 60_000);

  afterAll(async () => {
    await Promise.all([agent?.close(), full?.close()]);
  });

  it('toolSearch false sends every definition and no tool_search', () => {
    const mcpTools = fullTools.filter((t) => t.name.startsWith('mcp__'));
    expect(mcpTools).toHaveLength(TOTAL);
    expect(fullTools.map((t) => t.name)).not.toContain(SEARCH);
    expect(TOTAL).toBe(2_000);
  });

  it('the first request carries under 10% of the bytes of the full definitions', async () => {
    const scripted = model.use([{ text: 'hello' }]);
    const { error } = await collect(agent.run({ input: 'hi' }));
    expect(error).toBeUndefined();
    const first = scripted.requests[0]!.tools;
    // tool_search and the built-ins (context, the resource tools) are shown, no server tool
    expect(names(scripted.requests[0]!).sort()).toEqual(
      ['context', 'mcp_resources_list', 'mcp_resources_read', SEARCH].sort(),
    );
    expect(first.some((t) => t.name.startsWith('mcp__'))).toBe(false);
    expect(bytes(first)).toBeLessThan(bytes(fullTools) * 0.1);
  }, 30_000);

  it('a model finds a tool by describing it, gets its definition next turn and calls it on the server', async () => {
    const scripted = model.use([
      {
        toolCalls: [
          { name: SEARCH, arguments: { query: 'give the customer their money back for a charge' } },
        ],
      },
      (req) => {
        expect(names(req)).toContain(REFUND);
        return {
          toolCalls: [{ name: REFUND, arguments: { payment_id: 'pay_1', reason: 'damaged' } }],
        };
      },
      { text: 'refunded' },
    ]);
    const sessionId = 'search-and-call';
    const { events, error } = await collect(agent.run({ input: 'refund pay_1', sessionId }));
    expect(error).toBeUndefined();
    const [first, second, third] = scripted.requests;
    expect(names(first!)).not.toContain(REFUND);
    const found = listed(toolResults(second!)[0]!.content);
    expect(found[0]).toBe(REFUND);
    expect(toolResults(second!)[0]!.content).toContain('available from your next turn');
    // the found definitions, exactly as the server lists them, are added from turn 2 on
    expect(new Set(names(second!))).toEqual(new Set([...names(first!), ...found]));
    // appended at the end in the order found: the first request's list stays the prefix
    expect(names(second!)).toEqual([...names(first!), ...found]);
    expect(second!.tools.length).toBe(first!.tools.length + found.length);
    expect(second!.tools.find((t) => t.name === REFUND)).toEqual(
      fullTools.find((t) => t.name === REFUND),
    );
    const completed = ofType(events, 'tool.completed').find((e) => e.toolName === REFUND)!;
    expect(completed.isError).toBe(false);
    expect(toolResults(third!).at(-1)!.content).toBe(
      'billing.issue_refund: {"payment_id":"pay_1","reason":"damaged"}',
    );

    // a later run of the same session still shows the tools found before
    const later = model.use([{ text: 'again' }]);
    expect((await collect(agent.run({ input: 'and now?', sessionId }))).error).toBeUndefined();
    expect(names(later.requests[0]!)).toEqual(expect.arrayContaining(found));
    // restored in the order found, so the later run sends the same list as the earlier one
    expect(names(later.requests[0]!)).toEqual(names(third!));
  }, 30_000);

  it('ranks the expected tool in the top 3 for a fixed corpus of task descriptions', async () => {
    const { results } = await searchAll(
      agent,
      model,
      CORPUS.map(([query]) => ({ query, limit: 3 })),
    );
    expect(results).toHaveLength(CORPUS.length);
    const misses = CORPUS.flatMap(([query, expected], i) =>
      ranked(results[i]!.content).includes(expected) ? [] : [`${query} -> ${results[i]!.content}`],
    );
    expect(misses).toEqual([]);
    expect(CORPUS.length).toBeGreaterThanOrEqual(20);
  }, 30_000);

  it('ranks the expected tool in the top 3 for reworded requests, among near-miss tools', async () => {
    const { results } = await searchAll(
      agent,
      model,
      REWORDED.map(([query]) => ({ query, limit: 3 })),
    );
    expect(results).toHaveLength(REWORDED.length);
    const misses = REWORDED.flatMap(([query, expected], i) =>
      ranked(results[i]!.content).includes(expected) ? [] : [`${query} -> ${results[i]!.content}`],
    );
    expect(misses).toEqual([]);
  }, 30_000);

  it('regex mode matches names and descriptions; bad regexes and bad input are error results', async () => {
    const { results } = await searchAll(agent, model, [
      { query: '^mcp__weather__.*(tide|snow)', mode: 'regex', limit: 20 },
      { query: 'best-before', mode: 'regex' },
      { query: '(a+)+$', mode: 'regex' },
      { query: 'x', limit: 99 },
      { query: 'refund', mode: 'fuzzy' },
    ]);
    expect(listed(results[0]!.content).sort()).toEqual([
      'mcp__weather__snow_depth',
      'mcp__weather__tide_times',
    ]);
    expect(listed(results[1]!.content)).toEqual(['mcp__inventory__list_expiring_batches']);
    for (const bad of results.slice(2)) {
      expect(bad.isError).toBe(true);
      expect(bad.content).toContain('TOOL_ARGUMENTS_INVALID');
    }
  }, 30_000);

  it('slow regexes without nesting are refused before any scan, with the reason', async () => {
    // each of these passed the nesting check and ran to the scan's time limit before
    const slow = ['.*.*.*.*.*.*.*.*.*.*X', 'a*a*a*a*a*a*a*a*a*b', '[a-z]{0,65535}[a-z]{0,65535}x'];
    const { results } = await searchAll(
      agent,
      model,
      slow.map((query) => ({ query, mode: 'regex' })),
    );
    expect(results.map((r) => r.isError)).toEqual([true, true, true]);
    expect(results[0]!.content).toMatch(/TOOL_ARGUMENTS_INVALID.*10 unbounded quantifiers/s);
    expect(results[1]!.content).toMatch(/9 unbounded quantifiers/);
    expect(results[2]!.content).toMatch(/65535 times/);
    for (const r of results) expect(r.content).not.toMatch(/took too long/);
  }, 30_000);

  it('a visible tool not found yet may still be called: the catalog, not the view, is the authority', async () => {
    model.use([
      {
        toolCalls: [
          { name: 'mcp__weather__tide_times', arguments: { harbor_id: 'h1', date: 'today' } },
        ],
      },
      { text: 'ok' },
    ]);
    const { events, error } = await collect(agent.run({ input: 'tides' }));
    expect(error).toBeUndefined();
    const done = ofType(events, 'tool.completed')[0]!;
    expect(done.isError).toBe(false);
  }, 30_000);

  it('without visibleTools the hidden fixture tool is found (the control for the next test)', async () => {
    const { results } = await searchAll(agent, model, [
      { query: 'confidential salary ledger of every employee with bank account numbers' },
    ]);
    expect(listed(results[0]!.content)[0]).toBe(HIDDEN);
  }, 30_000);
});

describe('tool search and visibility, alwaysLoad, and the budget', () => {
  it('never reveals a tool outside visibleTools (ranked or regex); alwaysLoad tools are always sent', async () => {
    const model = new ModelSwitch();
    const hr = catalogTools('hr')
      .map((t) => catalogToolName('hr', t.name))
      .filter((n) => n !== HIDDEN);
    // the hidden tool's server and the two that alwaysLoad names, with near misses on hr
    const agent = catalogAgent(model, {
      mcpServers: catalogServers(VISIBILITY_DOMAINS),
      policy: {
        default: 'allow',
        visibleTools: [
          SEARCH,
          'context',
          ...VISIBILITY_DOMAINS.filter((d) => d !== 'hr').map((d) => `mcp__${d}`),
          ...hr,
        ],
      },
      mcp: { alwaysLoad: ['mcp__weather__get_forecast', 'mcp__crm'] },
    });
    try {
      const { results, model: scripted } = await searchAll(agent, model, [
        {
          query: 'confidential salary ledger of every employee with bank account numbers',
          limit: 20,
        },
        { query: 'salary|ledger|confidential|internal', mode: 'regex', limit: 20 },
        { query: HIDDEN },
      ]);
      for (const r of results) {
        expect(listed(r.content)).not.toContain(HIDDEN);
        // the result's first line repeats the query; nothing after it names the hidden tool
        expect(r.content.split('\n').slice(1).join('\n')).not.toMatch(/salary|ledger/i);
      }
      expect(listed(results[1]!.content)).toEqual([]);
      const first = names(scripted.requests[0]!);
      expect(first).toContain('mcp__weather__get_forecast');
      expect(first.filter((n) => n.startsWith('mcp__crm__'))).toHaveLength(200);
      expect(first.filter((n) => n.startsWith('mcp__')).length).toBe(201);
      expect(first).not.toContain(HIDDEN);

      // and calling it anyway is TOOL_NOT_FOUND
      model.use([
        { toolCalls: [{ name: HIDDEN, arguments: { fiscal_year: '2026' } }] },
        { text: 'no' },
      ]);
      const { events } = await collect(agent.run({ input: 'dump it' }));
      expect(ofType(events, 'tool.completed')[0]!.errorCode).toBe('TOOL_NOT_FOUND');
    } finally {
      await agent.close();
    }
  }, 60_000);

  it("'auto' below the budget sends every definition and no tool_search", async () => {
    const model = new ModelSwitch();
    // the default budget is 10% of context.maxTokens: a large window takes every definition
    // (three servers' 600: the budget is a sum of tokens, whatever the number of servers)
    const agent = catalogAgent(model, {
      mcpServers: catalogServers(VISIBILITY_DOMAINS),
      context: { maxTokens: 1_000_000 },
    });
    try {
      const scripted = model.use([{ text: 'hi' }]);
      expect((await collect(agent.run({ input: 'hi' }))).error).toBeUndefined();
      const sent = names(scripted.requests[0]!);
      expect(sent.filter((n) => n.startsWith('mcp__'))).toHaveLength(
        catalogSize(VISIBILITY_DOMAINS),
      );
      expect(sent).not.toContain(SEARCH);
    } finally {
      await agent.close();
    }
  }, 60_000);

  it('checks the options: INVALID_CONFIGURATION with the field named', () => {
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ toolSearch: 'always' }, /mcp\.toolSearch|toolSearch/],
      [{ toolSearchBudgetTokens: 0 }, /toolSearchBudgetTokens/],
      [{ toolSearchBudgetTokens: 1.5 }, /toolSearchBudgetTokens/],
      [{ alwaysLoad: 'mcp__crm' }, /alwaysLoad/],
      [{ alwaysLoad: ['mcp_connect:crm'] }, /alwaysLoad\[0\]/],
      [{ alwaysLoad: ['bad name!'] }, /alwaysLoad\[0\]/],
    ];
    for (const [mcp, message] of bad) {
      let caught: unknown;
      try {
        createAgent({ mcp: mcp as AgentOptions['mcp'] });
      } catch (err) {
        caught = err;
      }
      expect(caught, JSON.stringify(mcp)).toMatchObject({ code: 'INVALID_CONFIGURATION' });
      expect((caught as Error).message).toMatch(message);
    }
    expect(() =>
      createAgent({
        mcp: { toolSearch: true, toolSearchBudgetTokens: 100, alwaysLoad: ['mcp__crm__*'] },
      }),
    ).not.toThrow();
  });
});
