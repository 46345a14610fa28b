import { useEffect, useState } from 'preact/hooks';
import type { PromptsResponse, ResourcesResponse } from '../../../src/studio/api-types.js';
import { api, serverPath, toApiError, type ApiError } from '../api.js';
import { FormError } from '../form-error.js';
import { ServerSelect } from '../server-select.js';
import { PromptPanel } from './prompt-panel.js';
import { ResourcePanel } from './resource-panel.js';
import { TemplatePanel } from './template-panel.js';

type Entry = Readonly<Record<string, unknown>>;

interface Catalog {
  readonly resources: readonly Entry[];
  readonly templates: readonly Entry[];
  readonly prompts: readonly Entry[];
  readonly errors: readonly ApiError[];
}

type Selection =
  | { readonly kind: 'resource'; readonly key: string }
  | { readonly kind: 'template'; readonly key: string }
  | { readonly kind: 'prompt'; readonly key: string };

const EMPTY: Catalog = { resources: [], templates: [], prompts: [], errors: [] };

interface Listed {
  readonly server: string;
  readonly catalog: Catalog;
}

async function loadCatalog(server: string): Promise<Catalog> {
  const errors: ApiError[] = [];
  const [resources, prompts] = await Promise.all([
    api.get<ResourcesResponse>(serverPath(server, 'resources')).catch((e: unknown) => {
      errors.push(toApiError(e));
      return undefined;
    }),
    api.get<PromptsResponse>(serverPath(server, 'prompts')).catch((e: unknown) => {
      errors.push(toApiError(e));
      return undefined;
    }),
  ]);
  return {
    resources: resources?.resources ?? [],
    templates: resources?.templates ?? [],
    prompts: prompts?.prompts ?? [],
    errors,
  };
}

const label = (entry: Entry, fallback: unknown) =>
  String(entry.title ?? entry.name ?? fallback ?? '(unnamed)');

/** `#/resources`: a server's resources, templates and prompts. */
export function ResourcesPage() {
  const [server, setServer] = useState('');
  const [listed, setListed] = useState<Listed>({ server: '', catalog: EMPTY });
  // only the chosen server's entries, never the previous server's while the new ones load
  const catalog = listed.server === server ? listed.catalog : EMPTY;
  const [selection, setSelection] = useState<Selection | undefined>(undefined);
  useEffect(() => {
    setSelection(undefined);
    if (server === '') return;
    let live = true;
    void loadCatalog(server).then((c) => live && setListed({ server, catalog: c }));
    return () => {
      live = false;
    };
  }, [server]);
  const isSelected = (kind: Selection['kind'], key: string) =>
    selection?.kind === kind && selection.key === key;
  const itemClass = (kind: Selection['kind'], key: string) =>
    isSelected(kind, key) ? 'item selected' : 'item';
  const resource = catalog.resources.find((r) => isSelected('resource', String(r.uri)));
  const template = catalog.templates.find((t) => isSelected('template', String(t.uriTemplate)));
  const prompt = catalog.prompts.find((p) => isSelected('prompt', String(p.name)));
  return (
    <section data-testid="page-resources">
      <h2>Resources and prompts</h2>
      <div class="toolbar">
        <ServerSelect testId="resources-server" value={server} onChange={setServer} />
      </div>
      {catalog.errors.map((error, i) => (
        <FormError key={i} error={error} />
      ))}
      <div class="split">
        <div>
          <h4>Resources</h4>
          <ul class="list">
            {catalog.resources.map((r) => (
              <li key={String(r.uri)}>
                <button
                  type="button"
                  class={itemClass('resource', String(r.uri))}
                  data-testid="resource-item"
                  data-uri={String(r.uri)}
                  onClick={() => setSelection({ kind: 'resource', key: String(r.uri) })}
                >
                  <strong>{label(r, r.uri)}</strong>
                  <small class="muted">{String(r.uri)}</small>
                </button>
              </li>
            ))}
            {catalog.resources.length === 0 && <li class="muted">No resources.</li>}
          </ul>
          <h4>Templates</h4>
          <ul class="list">
            {catalog.templates.map((t) => (
              <li key={String(t.uriTemplate)}>
                <button
                  type="button"
                  class={itemClass('template', String(t.uriTemplate))}
                  data-testid="template-item"
                  data-uri-template={String(t.uriTemplate)}
                  onClick={() => setSelection({ kind: 'template', key: String(t.uriTemplate) })}
                >
                  <strong>{label(t, t.uriTemplate)}</strong>
                  <small class="muted">{String(t.uriTemplate)}</small>
                </button>
              </li>
            ))}
            {catalog.templates.length === 0 && <li class="muted">No templates.</li>}
          </ul>
          <h4>Prompts</h4>
          <ul class="list">
            {catalog.prompts.map((p) => (
              <li key={String(p.name)}>
                <button
                  type="button"
                  class={itemClass('prompt', String(p.name))}
                  data-testid="prompt-item"
                  data-prompt={String(p.name)}
                  onClick={() => setSelection({ kind: 'prompt', key: String(p.name) })}
                >
                  <strong>{label(p, p.name)}</strong>
                  {typeof p.description === 'string' && (
                    <small class="muted">{p.description}</small>
                  )}
                </button>
              </li>
            ))}
            {catalog.prompts.length === 0 && <li class="muted">No prompts.</li>}
          </ul>
        </div>
        <div>
          {resource && (
            <ResourcePanel
              key={`${server} ${String(resource.uri)}`}
              server={server}
              resource={resource}
            />
          )}
          {template && (
            <TemplatePanel
              key={`${server} ${String(template.uriTemplate)}`}
              server={server}
              template={template}
            />
          )}
          {prompt && (
            <PromptPanel key={`${server} ${String(prompt.name)}`} server={server} prompt={prompt} />
          )}
          {!selection && <p class="muted">Choose a resource, a template or a prompt.</p>}
        </div>
      </div>
    </section>
  );
}
