import { useEffect } from 'preact/hooks';
import { useStudio } from './use-studio.js';

/** Props of `<ServerSelect>`. */
export interface ServerSelectProps {
  readonly testId: string;
  readonly value: string;
  readonly onChange: (server: string) => void;
}

/** A select of the servers; picks the first connected one when nothing is chosen yet. */
export function ServerSelect({ testId, value, onChange }: ServerSelectProps) {
  const { servers = [] } = useStudio();
  useEffect(() => {
    if (value !== '' && servers.some((s) => s.name === value)) return;
    const first = servers.find((s) => s.status === 'connected') ?? servers[0];
    if (first && first.name !== value) onChange(first.name);
  }, [servers, value, onChange]);
  return (
    <label class="inline">
      Server{' '}
      <select data-testid={testId} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
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
