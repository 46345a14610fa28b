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
  'fleet',
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

/** What follows the route in the hash (`#/approvals/<id>` → `<id>`), decoded; else undefined. */
function currentDetail(): string | undefined {
  const match = /^#\/?[^/?]+\/([^?]+)/.exec(window.location.hash);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
}

/** The hash's detail after the route (an approval's id, say), updated on `hashchange`. */
export function useRouteDetail(): string | undefined {
  const [detail, setDetail] = useState<string | undefined>(currentDetail());
  useEffect(() => {
    const onChange = () => setDetail(currentDetail());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return detail;
}

/** The link to an item of a route: `#/approvals/<id>`. */
export function routeLink(route: Route, detail: string): string {
  return `#/${route}/${encodeURIComponent(detail)}`;
}
