/** The client's error classes, so failures read as they do over a transport. */
export interface ClientErrors {
  readonly SdkError: new (code: string, message: string, data?: unknown) => Error;
  readonly ProtocolError: (new (code: number, message: string, data?: unknown) => Error) & {
    /** The error the client makes of a JSON-RPC error answer (a subclass for known codes). */
    fromError(code: number, message: string, data?: unknown): Error;
  };
  /** The client's result schemas: a result is read through `CallToolResult`, as it is there. */
  readonly specTypeSchemas: {
    readonly CallToolResult: {
      safeParse(value: unknown): { success: boolean; data?: unknown; error?: unknown };
    };
  };
}

/** What the fast path reports as negotiated: what the transport path negotiates in that mode. */
export interface DirectEra {
  readonly era: 'modern' | 'legacy';
  readonly protocolVersion: string;
}

const INTERNAL_ERROR = -32603;
/** The JSON-RPC error of a tool that needs the user to open a URL first (legacy era). */
const URL_ELICITATION_REQUIRED = -32042;

/**
 * What the official server answers when a handler throws `UrlElicitationRequiredError` (every
 * other throw is an error result), or undefined for any other throw: on a legacy connection the
 * JSON-RPC error itself, which the client reads back as its own error (so Muster's
 * URL-elicitation handling sees it); on a modern one, where that error does not exist, the
 * server's internal error that says what to return instead.
 */
export function urlElicitationAnswer(
  err: unknown,
  errors: ClientErrors,
  negotiated: DirectEra,
): Error | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (!(err instanceof Error) || code !== URL_ELICITATION_REQUIRED) return undefined;
  if (negotiated.era === 'legacy') {
    const { data } = err as Error & { data?: unknown };
    return errors.ProtocolError.fromError(URL_ELICITATION_REQUIRED, err.message, data);
  }
  return new errors.ProtocolError(
    INTERNAL_ERROR,
    `URL elicitation cannot be signalled by throwing UrlElicitationRequiredError on protocol revision ${negotiated.protocolVersion}: return inputRequired({ inputRequests: { …: inputRequired.elicitUrl(...) } }) from the handler instead. The urlElicitationRequired error (-32042) of earlier revisions is not available on this revision.`,
  );
}
