import { MemorySessionStore } from '../../src/index.js';
import { describeStoreContract } from './store-contract.js';

describeStoreContract(
  'memory',
  async () => ({
    store: new MemorySessionStore(),
    cleanup: async () => undefined,
  }),
  { durable: false },
);
