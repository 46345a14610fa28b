import type { ApiError } from './api.js';

/** Shows a failed request: its code, its message and the field issues the server listed. */
export function FormError({ error }: { readonly error: ApiError | undefined }) {
  if (!error) return null;
  return (
    <div class="form-error" data-testid="form-error" role="alert">
      <strong>{error.code}</strong>: {error.message}
      {error.issues.length > 0 && (
        <ul>
          {error.issues.map((issue) => (
            <li key={issue.path}>
              <code>{issue.path || '(root)'}</code> {issue.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
