/** Props of `<CompletionOptions>`. */
export interface CompletionOptionsProps {
  readonly values: readonly string[] | undefined;
  readonly onPick: (value: string) => void;
}

/** The suggestions for one argument, each a button that fills the field. */
export function CompletionOptions({ values, onPick }: CompletionOptionsProps) {
  if (!values || values.length === 0) return null;
  return (
    <div class="completions" role="listbox">
      {values.map((value) => (
        <button
          type="button"
          key={value}
          class="completion"
          role="option"
          data-testid="completion-option"
          onClick={() => onPick(value)}
        >
          {value}
        </button>
      ))}
    </div>
  );
}
