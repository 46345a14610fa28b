import type { ProviderMetadata } from './provider-metadata.js';
import type { StopReason } from './stop-reason.js';
import type { Usage } from './usage.js';

/** One streamed piece of a model turn. */
export type ModelPart =
  | { readonly type: 'text-delta'; readonly text: string }
  | {
      readonly type: 'reasoning-delta';
      readonly text: string;
    }
  | {
      /** A finished reasoning item whose metadata must go back to the provider. */
      readonly type: 'reasoning';
      readonly text: string;
      readonly providerMetadata?: ProviderMetadata;
    }
  | {
      readonly type: 'tool-call';
      readonly callId: string;
      readonly name: string;
      /** The raw JSON text of the arguments, exactly as the model produced it. */
      readonly argumentsText: string;
      readonly providerMetadata?: ProviderMetadata;
    }
  | {
      readonly type: 'finish';
      readonly stopReason: StopReason;
      readonly usage?: Usage;
      readonly providerMetadata?: ProviderMetadata;
    };
