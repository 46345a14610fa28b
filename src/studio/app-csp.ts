/**
 * The Content-Security-Policy of an MCP Apps view, built from what its resource declares in
 * `_meta.ui.csp` (SEP-1865). Every declared origin is validated first: one that is not a
 * plain `https:` origin (or a loopback `http:` one) refuses the whole view, so a server can
 * never widen the policy with a quote, a semicolon or a bare wildcard.
 */

/** What a view's resource may declare (`McpUiResourceCsp` of the extension). */
export interface AppViewCspDeclaration {
  readonly connectDomains?: readonly string[];
  readonly resourceDomains?: readonly string[];
  readonly frameDomains?: readonly string[];
  readonly baseUriDomains?: readonly string[];
}

/** The policy, or why the declaration was refused. */
export type AppViewCspResult =
  | { readonly ok: true; readonly header: string }
  | { readonly ok: false; readonly problem: string };

const FIELDS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
type Field = (typeof FIELDS)[number];

/** The most origins one list may hold (the header stays small). */
const MAX_ORIGINS = 32;

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const PORT = '(?::(?:[1-9][0-9]{0,4}))?';
/** `https://host[:port]`, with an optional leading `*.` (a wildcard subdomain). */
const REMOTE = new RegExp(`^(https|wss)://((?:\\*\\.)?${LABEL}(?:\\.${LABEL})+)${PORT}/?$`);
/** `http://localhost[:port]`, `http://127.0.0.1[:port]`, `http://[::1][:port]`. */
const LOOPBACK = new RegExp(
  `^(http|ws|https|wss)://(localhost|127\\.0\\.0\\.1|\\[::1\\])${PORT}/?$`,
);

/** The port an origin without one uses, by scheme. */
const DEFAULT_PORTS: Readonly<Record<string, number>> = { http: 80, ws: 80, https: 443, wss: 443 };

/**
 * Checks one declared origin; `undefined` when valid, else what is wrong with it. WebSocket
 * schemes (`wss:`, loopback `ws:`) are accepted in `connectDomains` only. With `studioPort`,
 * the studio's own origin (a loopback host on that port, any scheme) is refused.
 */
export function originProblem(
  field: Field,
  value: unknown,
  studioPort?: number,
): string | undefined {
  if (typeof value !== 'string') return 'is not a string';
  const lower = value.toLowerCase();
  const match = REMOTE.exec(lower) ?? LOOPBACK.exec(lower);
  if (!match)
    return "is not an origin like 'https://api.example.com' or 'https://*.example.com' (only https:, or http: on localhost/127.0.0.1/[::1]; no paths, quotes, semicolons or bare wildcards)";
  const scheme = match[1]!;
  if ((scheme === 'ws' || scheme === 'wss') && field !== 'connectDomains')
    return `uses ${scheme}: which only connectDomains may`;
  const port = /:(\d+)\/?$/.exec(lower.replace(/^[a-z]+:\/\//, ''))?.[1];
  if (port !== undefined && Number(port) > 65_535) return 'has a port above 65535';
  const effective = port !== undefined ? Number(port) : DEFAULT_PORTS[scheme];
  if (studioPort !== undefined && LOOPBACK.test(lower) && effective === studioPort)
    return "is the studio's own origin, which a view may never reach";
  return undefined;
}

/** The source expression of a valid origin: lower case, without a trailing slash. */
function source(value: string): string {
  return value.toLowerCase().replace(/\/$/, '');
}

/**
 * Validates the declared domains and builds the view's policy. With nothing declared it is
 * the extension's restrictive default: inline scripts and styles, `data:` images and media,
 * no network, no frames. Always: `frame-ancestors 'self'` (only the studio page may embed
 * it) and `sandbox allow-scripts` (an opaque origin even if opened outside the iframe).
 */
export function buildAppViewCsp(declared: unknown, studioPort?: number): AppViewCspResult {
  if (declared !== undefined && (typeof declared !== 'object' || declared === null))
    return { ok: false, problem: '_meta.ui.csp is not an object' };
  const csp = (declared ?? {}) as Record<string, unknown>;
  const lists: Partial<Record<Field, string[]>> = {};
  for (const field of FIELDS) {
    const value = csp[field];
    if (value === undefined) continue;
    if (!Array.isArray(value))
      return { ok: false, problem: `_meta.ui.csp.${field} is not an array` };
    if (value.length > MAX_ORIGINS)
      return { ok: false, problem: `_meta.ui.csp.${field} lists more than ${MAX_ORIGINS} origins` };
    for (const [i, origin] of value.entries()) {
      const problem = originProblem(field, origin, studioPort);
      if (problem)
        return {
          ok: false,
          problem: `_meta.ui.csp.${field}[${i}] ${JSON.stringify(origin)} ${problem}`,
        };
    }
    lists[field] = [...new Set((value as string[]).map(source))];
  }
  const resources = lists.resourceDomains ?? [];
  const or = (values: readonly string[], fallback: string) =>
    values.length > 0 ? values.join(' ') : fallback;
  const directives = [
    "default-src 'none'",
    ["script-src 'unsafe-inline'", ...resources].join(' '),
    ["style-src 'unsafe-inline'", ...resources].join(' '),
    ['img-src data:', ...resources].join(' '),
    ['font-src data:', ...resources].join(' '),
    ['media-src data:', ...resources].join(' '),
    `connect-src ${or(lists.connectDomains ?? [], "'none'")}`,
    `frame-src ${or(lists.frameDomains ?? [], "'none'")}`,
    `base-uri ${or(lists.baseUriDomains ?? [], "'self'")}`,
    "object-src 'none'",
    "form-action 'none'",
    "frame-ancestors 'self'",
    'sandbox allow-scripts',
  ];
  return { ok: true, header: directives.join('; ') };
}

/** Permission Policy features a view may ask for, by their `_meta.ui.permissions` key. */
const PERMISSIONS: Readonly<Record<string, string>> = {
  camera: 'camera',
  microphone: 'microphone',
  geolocation: 'geolocation',
  clipboardWrite: 'clipboard-write',
};

/**
 * The iframe `allow` attribute for `_meta.ui.permissions`: only a key whose value is an object
 * is granted (unknown keys, false, null and other values are ignored; '' for none).
 */
export function appViewAllow(permissions: unknown): string {
  if (typeof permissions !== 'object' || permissions === null) return '';
  return Object.keys(PERMISSIONS)
    .filter((key) => {
      // `{}` asks for the feature; false, null or any other value does not grant it
      const value = (permissions as Record<string, unknown>)[key];
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    })
    .map((key) => PERMISSIONS[key]!)
    .join('; ');
}
