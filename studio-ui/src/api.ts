import type { StudioErrorBody } from '../../src/studio/api-types.js';

/** One field problem the server reported (`error.issues`). */
export interface ApiIssue {
  readonly path: string;
  readonly message: string;
}

/** What the policy decided about a refused tool call (`error.decision` of a 403). */
export interface ApiDecision {
  readonly decision: string;
  readonly stage: string;
  readonly reason?: string;
}

/** A failed request: the server's `{ error: { code, message } }`, or the page's own. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 0,
    readonly issues: readonly ApiIssue[] = [],
    readonly decision?: ApiDecision,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Turns anything thrown into an ApiError, so the page always has a code to show. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof Error) return new ApiError('PAGE_ERROR', error.message);
  return new ApiError('PAGE_ERROR', String(error));
}

function isErrorBody(value: unknown): value is StudioErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const error = (value as { error?: unknown }).error;
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string'
  );
}

function decisionOf(value: unknown): ApiDecision | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { decision, stage, reason } = value as Record<string, unknown>;
  if (typeof decision !== 'string' || typeof stage !== 'string') return undefined;
  return { decision, stage, ...(typeof reason === 'string' ? { reason } : {}) };
}

async function request<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) {
  const init: RequestInit = { method, credentials: 'same-origin', headers: {} };
  if (method !== 'GET') {
    // the studio refuses a POST or DELETE without it (CSRF protection)
    init.headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
    if (body !== undefined || method === 'POST') init.body = JSON.stringify(body ?? {});
  } else {
    init.headers = { Accept: 'application/json' };
  }
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new ApiError('NETWORK_ERROR', `The studio did not answer: ${toApiError(error).message}`);
  }
  const text = await response.text();
  let parsed: unknown = undefined;
  if (text.length > 0) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  if (!response.ok) {
    if (isErrorBody(parsed)) {
      const { code, message, issues } = parsed.error;
      const decision = decisionOf((parsed.error as { decision?: unknown }).decision);
      throw new ApiError(code, message, response.status, issues ?? [], decision);
    }
    throw new ApiError(`HTTP_${response.status}`, text.slice(0, 300) || response.statusText);
  }
  return parsed as T;
}

/** The studio's JSON API: same-origin, with the cookie, JSON in and out. */
export const api = {
  get: <T>(path: string) => request<T>('GET', path),
  post: <T>(path: string, body?: unknown) => request<T>('POST', path, body),
  delete: <T>(path: string, body?: unknown) => request<T>('DELETE', path, body),
};

/** `/api/servers/<name>` with the name escaped, plus more path segments (escaped too). */
export function serverPath(server: string, ...segments: string[]): string {
  return ['/api/servers', server, ...segments]
    .map((s, i) => (i === 0 ? s : encodeURIComponent(s)))
    .join('/');
}
