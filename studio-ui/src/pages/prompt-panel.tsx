import { useMemo, useState } from 'preact/hooks';
import { api, serverPath } from '../api.js';
import { promptArguments, stringArgumentsSchema, stringValues } from '../argument-schema.js';
import { CompletingForm } from '../completing-form.js';
import { ContentBlock } from '../content-block.js';
import { FormError } from '../form-error.js';
import { JsonView } from '../json-view.js';
import { useSchemaForm } from '../schema-form.js';
import { useAction } from '../use-action.js';
import { useCompletion } from '../use-completion.js';

/** Props of `<PromptPanel>`. */
export interface PromptPanelProps {
  readonly server: string;
  readonly prompt: Readonly<Record<string, unknown>>;
}

interface PromptResult {
  readonly description?: string;
  readonly messages?: readonly { readonly role?: string; readonly content?: unknown }[];
}

function MessageContent({ content }: { readonly content: unknown }) {
  const blocks = Array.isArray(content) ? content : [content];
  return (
    <>
      {blocks.map((block, i) =>
        typeof block === 'object' && block !== null ? (
          <ContentBlock key={i} block={block as Readonly<Record<string, unknown>>} />
        ) : (
          <JsonView key={i} value={block} />
        ),
      )}
    </>
  );
}

/** A prompt: its arguments as fields with completions, then its messages. */
export function PromptPanel({ server, prompt }: PromptPanelProps) {
  const name = String(prompt.name);
  const schema = useMemo(() => stringArgumentsSchema(promptArguments(prompt)), [prompt]);
  const form = useSchemaForm(schema);
  const completion = useCompletion(server, { type: 'ref/prompt', name });
  const [result, setResult] = useState<PromptResult | undefined>(undefined);
  const action = useAction();
  const get = (event: Event) => {
    event.preventDefault();
    const checked = form.submit();
    if (!checked) return;
    void action.run(async () => {
      setResult(
        await api.post<PromptResult>(serverPath(server, 'prompts', name), {
          arguments: stringValues(checked),
        }),
      );
    });
  };
  return (
    <form class="detail" onSubmit={get} noValidate>
      <h3>{String(prompt.title ?? name)}</h3>
      {typeof prompt.description === 'string' && <p>{prompt.description}</p>}
      <CompletingForm form={form} completion={completion} />
      <FormError error={action.error} />
      <button type="submit" class="primary" data-testid="prompt-get" disabled={action.busy}>
        Get
      </button>
      {result && (
        <div class="prompt-result" data-testid="prompt-result">
          {result.description && <p class="muted">{result.description}</p>}
          {(result.messages ?? []).map((message, i) => (
            <div class="message" key={i}>
              <span class="tag">{message.role ?? 'message'}</span>
              <MessageContent content={message.content} />
            </div>
          ))}
        </div>
      )}
    </form>
  );
}
