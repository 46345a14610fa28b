import { describe, expect, it } from 'vitest';
import { clientErrorOf, loadClient } from './client-errors.js';

describe('loadClient', () => {
  it('loads the official client once: every connection shares one promise', async () => {
    // an `import()` per connection is a round trip to a loader hook's thread when one runs
    const first = loadClient();
    expect(loadClient()).toBe(first);
    const client = await first;
    expect(await loadClient()).toBe(client);
  });

  it('classifies the client errors once it is loaded', async () => {
    const { SdkError, SdkErrorCode } = await loadClient();
    const err = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
    expect(clientErrorOf(err)).toEqual({ kind: 'sdk', code: SdkErrorCode.ConnectionClosed });
  });
});
