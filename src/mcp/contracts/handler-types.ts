import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  LoggingLevel,
} from '@modelcontextprotocol/client';

/** A workspace root the host shares with servers (`file://` URIs). */
export interface McpRoot {
  readonly uri: string;
  readonly name?: string;
}

/** The run and call a server's request arrived during, when there is one. */
export interface McpRequestOrigin {
  readonly server: string;
  /** The principal whose own connection the request came on (SPEC 15.4); none: a shared one. */
  readonly principal?: string;
  readonly signal: AbortSignal;
  readonly sessionId?: string;
  readonly runId?: string;
  readonly callId?: string;
}

/** Answers `sampling/createMessage` with a model completion of the host's choice. */
export type McpSamplingHandler = (
  request: CreateMessageRequestParams,
  origin: McpRequestOrigin,
) => Promise<CreateMessageResult>;

/** A server asks the user for input: a form (`requestedSchema`) or a URL to open. */
export interface McpElicitationRequest {
  readonly server: string;
  readonly mode: 'form' | 'url';
  readonly message: string;
  /** Form mode: the JSON Schema the answer's `content` must match. */
  readonly requestedSchema?: Readonly<Record<string, unknown>>;
  /** URL mode: an `https:` (or loopback `http:`) URL for the host to show; Muster never opens it. */
  readonly url?: string;
  readonly elicitationId?: string;
}

/**
 * The user's answer. `content` only with `accept` in form mode. `park` asks to park the run
 * (SPEC 15.1); a legacy in-flight `elicitation/create` cannot park, so there it is `cancel`.
 */
export interface McpElicitationAnswer {
  readonly action: 'accept' | 'decline' | 'cancel' | 'park';
  readonly content?: Readonly<Record<string, unknown>>;
}

/** Answers elicitation requests (form and URL mode). */
export type McpElicitationHandler = (
  request: McpElicitationRequest,
  origin: McpRequestOrigin,
) => Promise<McpElicitationAnswer>;

/** A log message a server sent (`notifications/message`). */
export interface McpLogMessage {
  readonly server: string;
  /** The principal whose own connection the message came on (SPEC 15.4); none: a shared one. */
  readonly principal?: string;
  readonly level: LoggingLevel;
  readonly logger?: string;
  readonly data: unknown;
}

/** The client-side handlers (SPEC 7.6). A handler not given is a capability not declared. */
export interface McpHandlers {
  readonly roots?: readonly McpRoot[] | (() => readonly McpRoot[] | Promise<readonly McpRoot[]>);
  /** A host function, or `'agent'`: the agent's own model answers, behind `mcp_sampling:<server>`. */
  readonly sampling?: 'agent' | McpSamplingHandler;
  readonly elicitation?: McpElicitationHandler;
  readonly logging?: (message: McpLogMessage) => void;
}

/** May answer an elicitation before the handler does (`undefined`: ask the handler). */
export type OnElicitationHook = (
  request: McpElicitationRequest,
  origin: McpRequestOrigin,
) => McpElicitationAnswer | undefined | Promise<McpElicitationAnswer | undefined>;

/**
 * Sees an answer before it goes to the server: return a new answer to rewrite it, `false` to
 * block it (the server is told `decline`), `undefined` to keep it.
 */
export type OnElicitationResultHook = (
  request: McpElicitationRequest,
  answer: McpElicitationAnswer,
  origin: McpRequestOrigin,
) => McpElicitationAnswer | false | undefined | Promise<McpElicitationAnswer | false | undefined>;

/** The elicitation hooks (they join the agent's `hooks`). */
export interface McpElicitationHooks {
  readonly onElicitation?: OnElicitationHook;
  readonly onElicitationResult?: OnElicitationResultHook;
}
