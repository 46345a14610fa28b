/** The pinned Node 22 binary package the conformance suite's command line runs on. */
export declare const NODE_PACKAGE: string;
/** Its pinned version. */
export declare const NODE_VERSION: string;
/** Where `npm run conformance:setup` installs it. */
export declare const NODE22_PREFIX: string;
/** The installed binary. */
export declare const NODE22_BIN: string;
/** The version installed, or undefined. */
export declare function installedVersion(): string | undefined;
