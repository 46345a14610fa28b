import { useMemo, useState } from 'preact/hooks';
import type { ReadResourceResponse } from '../../../src/studio/api-types.js';
import { api, serverPath } from '../api.js';
import { stringArgumentsSchema, stringValues } from '../argument-schema.js';
import { CompletingForm } from '../completing-form.js';
import { FormError } from '../form-error.js';
import { ResourceContents } from '../resource-contents.js';
import { useSchemaForm } from '../schema-form.js';
import { expandTemplate, templateVariables } from '../uri-template.js';
import { useAction } from '../use-action.js';
import { useCompletion } from '../use-completion.js';

/** Props of `<TemplatePanel>`. */
export interface TemplatePanelProps {
  readonly server: string;
  readonly template: Readonly<Record<string, unknown>>;
}

/** A resource template: its variables as fields with completions, then the read. */
export function TemplatePanel({ server, template }: TemplatePanelProps) {
  const uriTemplate = String(template.uriTemplate);
  const schema = useMemo(
    () =>
      stringArgumentsSchema(
        templateVariables(uriTemplate).map((name) => ({ name, required: true })),
      ),
    [uriTemplate],
  );
  const form = useSchemaForm(schema);
  const completion = useCompletion(server, { type: 'ref/resource', uri: uriTemplate });
  const [content, setContent] = useState<ReadResourceResponse | undefined>(undefined);
  const [uri, setUri] = useState<string | undefined>(undefined);
  const action = useAction();
  const values = stringValues(form.values);
  const read = (event: Event) => {
    event.preventDefault();
    const checked = form.submit();
    if (!checked) return;
    const expanded = expandTemplate(uriTemplate, stringValues(checked));
    setUri(expanded);
    void action.run(async () => {
      const path = `${serverPath(server, 'resource')}?uri=${encodeURIComponent(expanded)}`;
      setContent(await api.get<ReadResourceResponse>(path));
    });
  };
  return (
    <form class="detail" onSubmit={read} noValidate>
      <h3>{String(template.title ?? template.name ?? uriTemplate)}</h3>
      <p class="muted">
        <code>{uriTemplate}</code>
      </p>
      {typeof template.description === 'string' && <p>{template.description}</p>}
      <CompletingForm form={form} completion={completion} />
      <p class="muted">
        URI: <code>{expandTemplate(uriTemplate, values)}</code>
      </p>
      <FormError error={action.error} />
      <button type="submit" class="primary" data-testid="template-read" disabled={action.busy}>
        Read
      </button>
      {content && uri && <ResourceContents response={content} />}
    </form>
  );
}
