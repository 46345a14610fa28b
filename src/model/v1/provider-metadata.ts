/** Opaque per-provider data that must travel back to the same provider on later turns. */
export type ProviderMetadata = Readonly<Record<string, Readonly<Record<string, unknown>>>>;
