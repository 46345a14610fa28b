import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { CompleteBody, CompleteResponse } from '../../src/studio/api-types.js';
import { api, serverPath } from './api.js';

/** Suggestions per argument, and the call that asks for them as the user types. */
export interface Completion {
  readonly suggestions: Readonly<Record<string, readonly string[]>>;
  request(argument: string, value: string, context: Readonly<Record<string, string>>): void;
  clear(argument: string): void;
}

const DELAY_MS = 120;

/** Asks `POST /complete` for an argument's values a moment after the last keystroke. */
export function useCompletion(server: string, ref: CompleteBody['ref']): Completion {
  const [suggestions, setSuggestions] = useState<Readonly<Record<string, readonly string[]>>>({});
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const latest = useRef(0);
  const refKey = JSON.stringify(ref);
  useEffect(() => {
    // another server or template: an answer still on its way is for the old one
    latest.current += 1;
    clearTimeout(timer.current);
    setSuggestions({});
    return () => {
      latest.current += 1;
      clearTimeout(timer.current);
    };
  }, [server, refKey]);
  const request = useCallback(
    (argument: string, value: string, context: Readonly<Record<string, string>>) => {
      clearTimeout(timer.current);
      const id = ++latest.current;
      timer.current = setTimeout(() => {
        const others = Object.fromEntries(Object.entries(context).filter(([k]) => k !== argument));
        const body: CompleteBody = {
          ref: JSON.parse(refKey) as CompleteBody['ref'],
          argument: { name: argument, value },
          ...(Object.keys(others).length > 0 ? { context: { arguments: others } } : {}),
        };
        api
          .post<CompleteResponse>(serverPath(server, 'complete'), body)
          .then((response) => {
            if (id !== latest.current) return;
            const values = Array.isArray(response?.values) ? response.values.slice(0, 20) : [];
            setSuggestions((s) => ({ ...s, [argument]: values }));
          })
          .catch(() => {
            // a server without completions simply offers none
            if (id === latest.current) setSuggestions((s) => ({ ...s, [argument]: [] }));
          });
      }, DELAY_MS);
    },
    [server, refKey],
  );
  const clear = useCallback((argument: string) => {
    setSuggestions((s) => ({ ...s, [argument]: [] }));
  }, []);
  return { suggestions, request, clear };
}
