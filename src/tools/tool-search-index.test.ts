import { describe, expect, it } from 'vitest';
import { ToolSearchIndex } from './index.js';
import type { SearchableTool } from './index.js';
import { searchTerms, splitWords, stem } from './tool-search-tokens.js';

function searchable(
  name: string,
  description: string,
  params: Record<string, string> = {},
): SearchableTool {
  return {
    name,
    description,
    inputSchema: {
      type: 'object',
      properties: Object.fromEntries(
        Object.entries(params).map(([k, d]) => [k, { type: 'string', description: d }]),
      ),
    },
  };
}

const TOOLS = [
  searchable('mcp__calendar__create_event', 'Creates a new calendar event.', {
    title: 'Event title.',
    start_time: 'When it starts.',
  }),
  searchable('mcp__billing__issueRefund', 'Gives money back to a customer for a charge.', {
    payment_id: 'The charge.',
    amount_cents: 'How much.',
  }),
  searchable('mcp__weather__get_forecast', 'Predicts temperature and rain for the coming days.', {
    latitude: 'Latitude.',
    longitude: 'Longitude.',
  }),
  searchable('mcp__files__move_to_trash', 'Moves a file to the trash bin.', {
    path: 'The file.',
  }),
  searchable('mcp__hr__request_time_off', 'Asks for vacation between two dates.', {
    leave_type: 'vacation, sick or parental.',
  }),
];

const names = (index: ToolSearchIndex, query: string, limit = 5) =>
  index.search(query, limit).map((h) => h.tool.name);

describe('tool search terms', () => {
  it('splits names at __, _, -, dots and camelCase', () => {
    expect(splitWords('mcp__billing__issueRefund')).toEqual(['mcp', 'billing', 'issue', 'refund']);
    expect(splitWords('HTTPServer-list.items')).toEqual(['http', 'server', 'list', 'items']);
  });

  it('folds plurals and -ing/-ed forms onto one stem', () => {
    const forms = ['create', 'creates', 'created', 'creating'].map(stem);
    expect(new Set(forms).size).toBe(1);
    expect(stem('invoices')).toBe(stem('invoice'));
    expect(stem('entries')).toBe(stem('entry'));
    expect(stem('running')).toBe(stem('run'));
    expect(stem('address')).toBe('address');
  });

  it('keeps non-ASCII words, folding accents: German', () => {
    expect(splitWords('Überprüft Rechnungsbeträge für Kunden')).toEqual([
      'uberpruft',
      'rechnungsbetrage',
      'fur',
      'kunden',
    ]);
    expect(searchTerms('Straße')).toEqual(searchTerms('strasse'));
    expect(searchTerms('Größe ändern')).toEqual(searchTerms('grosse andern'));
    expect(splitWords('créerÉvénement')).toEqual(['creer', 'evenement']);
  });

  it('turns CJK runs into character bigrams', () => {
    expect(searchTerms('发送电子邮件')).toEqual(['发送', '送电', '电子', '子邮', '邮件']);
    expect(searchTerms('邮件 and メール送信')).toEqual(['邮件', 'メー', 'ール', 'ル送', '送信']);
    expect(searchTerms('한국어')).toEqual(['한국', '국어']);
    expect(searchTerms('查')).toEqual(['查']);
  });

  it('drops one-letter Latin words but keeps digits and longer words', () => {
    expect(searchTerms('fetchX a b z 3 pm2 5')).toEqual(['fetch', '3', 'pm2', '5']);
  });

  it('leaves out stop words', () => {
    expect(searchTerms('find the tool that I want for a refund')).toEqual(
      ['find', 'tool', 'refund'].map(stem),
    );
  });
});

describe('ToolSearchIndex', () => {
  const index = new ToolSearchIndex(TOOLS);

  it('ranks by description words', () => {
    expect(names(index, 'give a customer their money back')[0]).toBe('mcp__billing__issueRefund');
    expect(names(index, 'will it rain in the coming days')[0]).toBe('mcp__weather__get_forecast');
  });

  it('ranks by parameter names and parameter descriptions', () => {
    expect(names(index, 'latitude longitude')[0]).toBe('mcp__weather__get_forecast');
    expect(names(index, 'amount_cents payment_id')[0]).toBe('mcp__billing__issueRefund');
    expect(names(index, 'parental leave')[0]).toBe('mcp__hr__request_time_off');
  });

  it('finds camelCase name parts and inflected forms', () => {
    expect(names(index, 'refunds')[0]).toBe('mcp__billing__issueRefund');
    expect(names(index, 'creating events')[0]).toBe('mcp__calendar__create_event');
  });

  it('finds tools described in German or Chinese', () => {
    const intl = new ToolSearchIndex([
      ...TOOLS,
      searchable('mcp__buchhaltung__pruefe_rechnung', 'Überprüft eine Rechnung für den Kunden.'),
      searchable('mcp__mail__send', '向客户发送电子邮件。', { 收件人: '收件人的地址。' }),
      searchable('mcp__files__search', '在文件中搜索文本。'),
    ]);
    expect(names(intl, 'rechnung uberprufen')[0]).toBe('mcp__buchhaltung__pruefe_rechnung');
    expect(names(intl, 'Rechnung für Kunden')[0]).toBe('mcp__buchhaltung__pruefe_rechnung');
    expect(names(intl, '发送邮件')[0]).toBe('mcp__mail__send');
    expect(names(intl, '收件人')[0]).toBe('mcp__mail__send');
    expect(names(intl, '搜索文件')[0]).toBe('mcp__files__search');
  });

  it('ranks a reworded request (synonyms, not the description words) above near-miss tools', () => {
    // each target has a near miss that shares its topic words but does something else
    const corpus = new ToolSearchIndex([
      ...TOOLS,
      searchable('mcp__billing__list_refunds', 'Lists the refunds already given, newest first.', {
        page_size: 'How many per page.',
      }),
      searchable('mcp__billing__get_customer', 'Fetches one customer by id.', {
        customer_id: 'The customer.',
      }),
      searchable('mcp__hr__list_employees', 'Lists employees by department.', {
        department: 'The department.',
      }),
      searchable('mcp__hr__run_payroll', 'Pays all employees their wages for a pay period.', {
        pay_period: 'e.g. 2026-06.',
      }),
      searchable('mcp__mail__delete_message', 'Removes an email for good.', { id: 'The mail.' }),
      searchable('mcp__mail__mark_as_spam', 'Reports a message as unwanted and moves it away.', {
        message_id: 'The message.',
      }),
      searchable('mcp__crm__score_lead', 'Rates how likely a prospect is to buy, from 0 to 100.', {
        lead_id: 'The prospect.',
      }),
      searchable('mcp__crm__create_lead', 'Creates a new prospect record.', { name: 'Name.' }),
    ]);
    const reworded: [string, string][] = [
      ['reimburse a client for a purchase', 'mcp__billing__issueRefund'],
      ['pay staff their salaries', 'mcp__hr__run_payroll'],
      ['flag a mail as junk', 'mcp__mail__mark_as_spam'],
      ['chance that a lead converts', 'mcp__crm__score_lead'],
    ];
    const misses = reworded.flatMap(([query, want]) => {
      const got = names(corpus, query, 1);
      return got[0] === want ? [] : [`${query} -> ${got.join(', ')}`];
    });
    expect(misses).toEqual([]);
  });

  it('weights a name word over the same word in a description', () => {
    const both = new ToolSearchIndex([
      searchable('mcp__a__archive_note', 'Keeps a thing.'),
      searchable('mcp__a__keep_note', 'Puts a note into the archive.'),
    ]);
    expect(names(both, 'archive')).toEqual(['mcp__a__archive_note', 'mcp__a__keep_note']);
  });

  it('returns at most limit hits, best first, and nothing for unknown words', () => {
    const hits = index.search('the file of a customer event', 2);
    expect(hits).toHaveLength(2);
    expect(hits[0]!.score).toBeGreaterThanOrEqual(hits[1]!.score);
    expect(index.search('zzzz qqqq', 5)).toEqual([]);
    expect(index.search('', 5)).toEqual([]);
  });

  it('gives the regex mode name and description, bounded', () => {
    const long = new ToolSearchIndex([searchable('t', 'x'.repeat(10_000))]);
    expect(long.regexTexts()[0]!.length).toBe(2048);
    expect(index.regexTexts()[3]).toBe('mcp__files__move_to_trash\nMoves a file to the trash bin.');
    expect(index.at(3)?.name).toBe('mcp__files__move_to_trash');
  });
});
