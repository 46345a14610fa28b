import { useEffect, useRef } from 'preact/hooks';
import { useStudio } from './use-studio.js';

/** Props of `<ServerSelect>`. */
export interface ServerSelectProps {
  readonly testId: string;
  readonly value: string;
  readonly onChange: (server: string) => void;
}

/**
 * A select of the servers; picks the first connected one when nothing is chosen yet. A choice
 * the person makes wins over that pick: the pick runs after a render, and a choice made between
 * that render and the pick (the list of servers just arrived) is already known to it.
 */
export function ServerSelect({ testId, value, onChange }: ServerSelectProps) {
  const { servers = [] } = useStudio();
  // the latest value: this render's, or a choice made since that the next render will show
  const chosen = useRef(value);
  chosen.current = value;
  useEffect(() => {
    const current = chosen.current;
    if (current !== '' && servers.some((s) => s.name === current)) return;
    const first = servers.find((s) => s.status === 'connected') ?? servers[0];
    if (first && first.name !== current) onChange(first.name);
  }, [servers, value, onChange]);
  return (
    <label class="inline">
      Server{' '}
      <select
        data-testid={testId}
        value={value}
        onChange={(e) => {
          chosen.current = e.currentTarget.value;
          onChange(e.currentTarget.value);
        }}
      >
        {value === '' && <option value="">(none)</option>}
        {servers.map((s) => (
          <option key={s.name} value={s.name}>
            {s.name} ({s.status})
          </option>
        ))}
      </select>
    </label>
  );
}
