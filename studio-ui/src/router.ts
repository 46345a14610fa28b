import { useEffect, useState } from 'preact/hooks';

/** The page's routes (`#/<name>`). */
export const ROUTES = [
  'servers',
  'tools',
  'resources',
  'runs',
  'approvals',
  'elicitations',
  'signin',
] as const;

/** One route name. */
export type Route = (typeof ROUTES)[number];

function currentRoute(): Route {
  const name = window.location.hash.replace(/^#\/?/, '').split(/[/?]/)[0];
  return (ROUTES as readonly string[]).includes(name ?? '') ? (name as Route) : 'servers';
}

/** The route of the location's hash, updated on `hashchange`. */
export function useRoute(): Route {
  const [route, setRoute] = useState<Route>(currentRoute());
  useEffect(() => {
    const onChange = () => setRoute(currentRoute());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
