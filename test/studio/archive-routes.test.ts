/**
 * Archived references of the studio's direct calls, against the big-result fixture over
 * stdio: a result over `mcp.archiveThresholdBytes` comes back as the preview a run's model
 * would read plus a ref in the `studio` session's archive, which
 * `GET /api/sessions/:id/archive/:ref` pages to the exact bytes; refs are scoped to their
 * session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  ArchiveListResponse,
  ArchivePageResponse,
  CallToolResponse,
  StudioErrorBody,
} from '../../src/studio/api-types.js';
import { archiveRoutes } from '../../src/studio/archive-routes.js';
import { bigText } from '../fixtures/mcp/fixture-data.mjs';
import { stdioConfig } from '../support/mcp-fixtures.js';
import { mcpStudio } from './mcp-studio-support.js';
import type { McpStudio } from './mcp-studio-support.js';

let studio: McpStudio;
beforeAll(() => {
  studio = mcpStudio({ servers: { big: stdioConfig('big-result-server.mjs') } });
  archiveRoutes(studio.app, studio.ctx);
});
afterAll(() => studio?.close());

async function json<T>(response: Promise<Response>, status = 200): Promise<T> {
  const r = await response;
  const body = (await r.json()) as T;
  expect(r.status, JSON.stringify(body).slice(0, 500)).toBe(status);
  return body;
}

const callBig = (kib: number) =>
  json<CallToolResponse>(
    studio.call('POST', '/api/servers/big/tools/big/call', { arguments: { kib } }),
  );

describe('archived results of direct calls', () => {
  it('answers a big result as a preview and a ref, paged to the end with the exact bytes', async () => {
    const expected = bigText(100);
    const { result } = await callBig(100);
    expect(result?.archived).toEqual([
      {
        ref: expect.stringMatching(/^ref_[0-9a-z]+$/),
        sessionId: 'studio',
        kind: 'text',
        mimeType: 'text/plain',
        totalBytes: expected.length,
      },
    ]);
    const ref = result!.archived![0]!.ref;
    expect(result?.preview).toContain(expected.slice(0, 1000));
    expect(result?.preview).toContain(`ref=${ref}`);
    expect(result?.preview!.length).toBeLessThan(4096);
    // no text block carries the whole result; the raw result (under 1 MiB) is kept for views
    expect(result?.content).toEqual([]);
    expect(result?.rawOmitted).toBeUndefined();
    expect(result?.raw['content']).toEqual([{ type: 'text', text: expected }]);

    let text = '';
    let offset: number | undefined = 0;
    let pages = 0;
    while (offset !== undefined) {
      const page: ArchivePageResponse = await json<ArchivePageResponse>(
        studio.call('GET', `/api/sessions/studio/archive/${ref}?offset=${offset}&length=30000`),
      );
      expect(page).toMatchObject({ ref, offset, totalBytes: expected.length });
      text += page.text ?? '';
      offset = page.nextOffset;
      pages += 1;
    }
    expect(pages).toBe(Math.ceil(expected.length / 30000));
    expect(text).toBe(expected);

    const listed = await json<ArchiveListResponse>(
      studio.call('GET', '/api/sessions/studio/archive'),
    );
    expect(listed.items.map((i) => i.ref)).toContain(ref);
  }, 30_000);

  it('refuses a ref of another session, and an unknown one, with 404', async () => {
    const { result } = await callBig(32);
    const ref = result!.archived![0]!.ref;
    const other = await json<StudioErrorBody>(
      studio.call('GET', `/api/sessions/someone-else/archive/${ref}`),
      404,
    );
    expect(other.error.code).toBe('STUDIO_NOT_FOUND');
    const unknown = await json<StudioErrorBody>(
      studio.call('GET', '/api/sessions/studio/archive/ref_doesnotexist'),
      404,
    );
    expect(unknown.error.code).toBe('STUDIO_NOT_FOUND');
    const bad = await json<StudioErrorBody>(
      studio.call('GET', `/api/sessions/studio/archive/${ref}?offset=-1`),
      400,
    );
    expect(bad.error.code).toBe('STUDIO_BAD_REQUEST');
  }, 30_000);

  it('leaves a small result as it was, and leaves out a raw result over 1 MiB', async () => {
    const small = await callBig(1);
    expect(small.result?.archived).toBeUndefined();
    expect(small.result?.content).toEqual([{ type: 'text', text: bigText(1) }]);

    const huge = await callBig(1100);
    expect(huge.result?.rawOmitted?.bytes).toBeGreaterThan(1024 * 1024);
    expect(huge.result?.raw['content']).toEqual([{ type: 'text', text: huge.result?.preview }]);
    expect(JSON.stringify(huge).length).toBeLessThan(16 * 1024);
  }, 30_000);
});
