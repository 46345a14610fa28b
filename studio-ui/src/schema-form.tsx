import type { ComponentChildren } from 'preact';
import { ApiError } from './api.js';
import { FormError } from './form-error.js';
import { useMemo, useRef, useState } from 'preact/hooks';
import { checkValues } from './schema-form-check.js';
import {
  fieldsOf,
  initialValues,
  type FieldSpec,
  type JsonSchema,
  type RawValues,
} from './schema-form-values.js';

/** A form's state: its fields, raw values and the page's messages per field. */
export interface SchemaFormState {
  readonly fields: readonly FieldSpec[];
  readonly values: RawValues;
  readonly errors: Readonly<Record<string, string>>;
  setValue(name: string, value: string | boolean | readonly string[]): void;
  /** Checks the values; returns the object to send, or undefined (messages shown by the fields). */
  submit(): Record<string, unknown> | undefined;
}

/** The state of a form generated from `schema`; reset when the schema changes. */
export function useSchemaForm(schema: JsonSchema | undefined): SchemaFormState {
  // by content: the same schema sent again (an event stream reconnect) keeps what was typed
  const key = JSON.stringify(schema ?? null);
  const fields = useMemo(() => fieldsOf(schema), [key]);
  const [state, setState] = useState<FormMemory>(() => fresh(key, fields));
  const current = state.key === key ? state : fresh(key, fields);
  if (current !== state) setState(current);
  // the latest values, for a submit that follows an edit before the next render
  const latest = useRef(current.values);
  latest.current = current.values;
  return {
    fields,
    values: current.values,
    errors: current.errors,
    setValue(name, value) {
      latest.current = { ...latest.current, [name]: value };
      setState((s) => {
        const { [name]: _dropped, ...errors } = s.errors;
        return { ...s, values: { ...s.values, [name]: value }, errors };
      });
    },
    submit() {
      const result = checkValues(schema, fields, latest.current);
      if (result.ok) {
        setState((s) => ({ ...s, errors: {} }));
        return result.value;
      }
      setState((s) => ({ ...s, errors: result.errors }));
      return undefined;
    },
  };
}

interface FormMemory {
  readonly key: string;
  readonly values: RawValues;
  readonly errors: Readonly<Record<string, string>>;
}

function fresh(key: string, fields: readonly FieldSpec[]): FormMemory {
  return { key, values: initialValues(fields), errors: {} };
}

interface FieldProps {
  readonly field: FieldSpec;
  readonly value: string | boolean | readonly string[] | undefined;
  readonly onValue: (value: string | boolean | readonly string[]) => void;
}

function FieldControl({ field, value, onValue }: FieldProps) {
  const common = {
    id: `field-${field.name}`,
    name: field.name,
    'data-testid': `field-${field.name}`,
    'aria-required': field.required,
  };
  const text = typeof value === 'string' ? value : '';
  switch (field.kind) {
    case 'boolean':
      return (
        <input
          {...common}
          type="checkbox"
          checked={value === true}
          onChange={(e) => onValue(e.currentTarget.checked)}
        />
      );
    case 'enum':
      return (
        <select {...common} value={text} onChange={(e) => onValue(e.currentTarget.value)}>
          <option value="">{field.required ? '(choose one)' : '(none)'}</option>
          {field.options.map((o) => (
            <option key={o.key} value={o.key}>
              {o.label}
            </option>
          ))}
        </select>
      );
    case 'multi-enum': {
      const chosen = Array.isArray(value) ? value : [];
      return (
        <select
          {...common}
          multiple
          onChange={(e) =>
            onValue([...e.currentTarget.selectedOptions].map((option) => option.value))
          }
        >
          {field.options.map((o) => (
            <option key={o.key} value={o.key} selected={chosen.includes(o.key)}>
              {o.label}
            </option>
          ))}
        </select>
      );
    }
    case 'number':
    case 'integer': {
      const { minimum, maximum } = field.schema;
      return (
        <input
          {...common}
          type="number"
          step={field.kind === 'integer' ? 1 : 'any'}
          min={typeof minimum === 'number' ? minimum : undefined}
          max={typeof maximum === 'number' ? maximum : undefined}
          value={text}
          onInput={(e) => onValue(e.currentTarget.value)}
        />
      );
    }
    case 'json':
      return (
        <textarea
          {...common}
          class="json-input"
          rows={4}
          spellcheck={false}
          placeholder={typeof field.schema.type === 'string' ? `JSON ${field.schema.type}` : 'JSON'}
          value={text}
          onInput={(e) => onValue(e.currentTarget.value)}
        />
      );
    default:
      return (
        <input
          {...common}
          type="text"
          autocomplete="off"
          value={text}
          onInput={(e) => onValue(e.currentTarget.value)}
        />
      );
  }
}

/** The page's own refusal to send: which fields need attention (shown as a form error too). */
function invalidForm(form: SchemaFormState): ApiError | undefined {
  const names = Object.keys(form.errors);
  if (names.length === 0) return undefined;
  return new ApiError(
    'FORM_INVALID',
    'Nothing was sent; correct the marked fields first.',
    0,
    names.map((name) => ({ path: name, message: form.errors[name] ?? '' })),
  );
}

/** Props of `<SchemaForm>`. */
export interface SchemaFormProps {
  readonly form: SchemaFormState;
  /** Called after a field's value changed (e.g. to ask for completions). */
  readonly onFieldInput?: (name: string, value: string | boolean | readonly string[]) => void;
  /** Extra content under a field (completion suggestions). */
  readonly below?: (field: FieldSpec) => ComponentChildren;
}

/** The controls of a generated form: one per property, with its label and message. */
export function SchemaForm({ form, onFieldInput, below }: SchemaFormProps) {
  if (form.fields.length === 0) return <p class="muted">No arguments.</p>;
  return (
    <div class="schema-form">
      {form.fields.map((field) => {
        const error = form.errors[field.name];
        return (
          <div class={error ? 'field invalid' : 'field'} key={field.name}>
            <label for={`field-${field.name}`}>
              {field.label}
              {field.label !== field.name && <code class="field-name">{field.name}</code>}
              {field.required && (
                <span class="required" title="required">
                  *
                </span>
              )}
            </label>
            <FieldControl
              field={field}
              value={form.values[field.name]}
              onValue={(value) => {
                form.setValue(field.name, value);
                onFieldInput?.(field.name, value);
              }}
            />
            {field.description && <small class="hint">{field.description}</small>}
            {error && (
              <small class="field-error" data-testid={`field-error-${field.name}`}>
                {error}
              </small>
            )}
            {below?.(field)}
          </div>
        );
      })}
      <FormError error={invalidForm(form)} />
    </div>
  );
}
