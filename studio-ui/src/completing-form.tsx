import { stringValues } from './argument-schema.js';
import { CompletionOptions } from './completion-options.js';
import { SchemaForm } from './schema-form.js';
import type { SchemaFormState } from './schema-form.js';
import type { Completion } from './use-completion.js';

/** Props of `<CompletingForm>`. */
export interface CompletingFormProps {
  readonly form: SchemaFormState;
  readonly completion: Completion;
}

/**
 * String arguments (of a prompt or a resource template) as form fields that ask the server
 * for completions as the user types (the other fields' values as context), each field's
 * suggestions below it; picking one fills the field.
 */
export function CompletingForm({ form, completion }: CompletingFormProps) {
  const values = stringValues(form.values);
  return (
    <SchemaForm
      form={form}
      onFieldInput={(name, value) => {
        if (typeof value === 'string')
          completion.request(name, value, { ...values, [name]: value });
      }}
      below={(field) => (
        <CompletionOptions
          values={completion.suggestions[field.name]}
          onPick={(value) => {
            form.setValue(field.name, value);
            completion.clear(field.name);
          }}
        />
      )}
    />
  );
}
