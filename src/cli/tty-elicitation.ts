import type * as InquirerPrompts from '@inquirer/prompts';
import type { McpElicitationAnswer, McpElicitationRequest } from '../mcp/index.js';
import type { PromptContext, PromptQueue } from './tty-approver.js';

/** The prompt functions, loaded on the TTY path only. */
type Prompts = typeof InquirerPrompts;

interface FieldSchema {
  readonly type?: string;
  readonly title?: string;
  readonly description?: string;
  readonly enum?: readonly unknown[];
  readonly oneOf?: readonly { const?: unknown; title?: string }[];
  readonly default?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
}

/**
 * The elicitation handler of a TTY run: a form is answered field by field from its
 * `requestedSchema` (strings with `input`, numbers and integers with `number`, booleans with
 * `confirm`, enums with `select`); a URL-mode request prints the URL and asks whether to go on.
 * Declining the first question declines the whole request.
 */
export function ttyElicitation(queue: PromptQueue) {
  return (request: McpElicitationRequest, origin: { signal: AbortSignal }) =>
    queue.run<McpElicitationAnswer>(
      async (context) => {
        // loaded only here, on the TTY path: the prompts need Node >= 20.17 (docs/cli.md)
        const prompts = await import('@inquirer/prompts');
        const { confirm, select } = prompts;
        context.output.write(`\n[${request.server}] ${request.message}\n`);
        if (request.mode === 'url') {
          context.output.write(`Open this URL: ${request.url ?? ''}\n`);
          const go = await confirm({ message: 'Done, continue?', default: true }, context);
          return { action: go ? 'accept' : 'decline' };
        }
        const answer = await select(
          {
            message: 'Answer this form?',
            choices: [
              { name: 'Answer', value: 'accept' as const },
              { name: 'Decline', value: 'decline' as const },
            ],
          },
          context,
        );
        if (answer === 'decline') return { action: 'decline' };
        return { action: 'accept', content: await fillForm(request, context, prompts) };
      },
      origin.signal,
      { action: 'cancel' },
    );
}

async function fillForm(
  request: McpElicitationRequest,
  context: PromptContext,
  prompts: Prompts,
): Promise<Record<string, unknown>> {
  const schema = request.requestedSchema ?? {};
  const properties = (schema['properties'] ?? {}) as Record<string, FieldSchema>;
  const required = new Set((schema['required'] ?? []) as string[]);
  const content: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(properties)) {
    const value = await askField(key, field, required.has(key), context, prompts);
    if (value !== undefined && value !== '') content[key] = value;
  }
  return content;
}

async function askField(
  key: string,
  field: FieldSchema,
  required: boolean,
  context: PromptContext,
  { confirm, input, number, select }: Prompts,
): Promise<unknown> {
  const message = `${field.title ?? key}${field.description ? ` (${field.description})` : ''}${required ? '' : ' [optional]'}:`;
  const options = enumOptions(field);
  if (options !== undefined) {
    return select(
      {
        message,
        choices: options,
        ...(field.default === undefined ? {} : { default: field.default }),
      },
      context,
    );
  }
  switch (field.type) {
    case 'boolean':
      return confirm(
        { message, default: typeof field.default === 'boolean' ? field.default : false },
        context,
      );
    case 'number':
    case 'integer':
      return number(
        {
          message,
          required,
          step: field.type === 'integer' ? 1 : 'any',
          ...(typeof field.default === 'number' ? { default: field.default } : {}),
          ...(field.minimum === undefined ? {} : { min: field.minimum }),
          ...(field.maximum === undefined ? {} : { max: field.maximum }),
        },
        context,
      );
    default:
      return input(
        {
          message,
          required,
          ...(typeof field.default === 'string' ? { default: field.default } : {}),
        },
        context,
      );
  }
}

function enumOptions(field: FieldSchema): { name: string; value: unknown }[] | undefined {
  if (Array.isArray(field.enum)) return field.enum.map((v) => ({ name: String(v), value: v }));
  if (Array.isArray(field.oneOf) && field.oneOf.every((o) => 'const' in o)) {
    return field.oneOf.map((o) => ({ name: o.title ?? String(o.const), value: o.const }));
  }
  return undefined;
}
