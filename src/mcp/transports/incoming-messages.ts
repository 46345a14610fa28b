import type { Transport } from '@modelcontextprotocol/client';

/** What a transport calls with each incoming message. */
export type OnMessage = NonNullable<Transport['onmessage']>;

/** The `onmessage` descriptor of `transport`, its own or its class's. */
function descriptorOf(transport: Transport): PropertyDescriptor | undefined {
  for (
    let o: object | null = transport;
    o !== null;
    o = Object.getPrototypeOf(o) as object | null
  ) {
    const descriptor = Object.getOwnPropertyDescriptor(o, 'onmessage');
    if (descriptor) return descriptor;
  }
  return undefined;
}

/**
 * Puts `intercept` between `transport` and whoever sets its `onmessage` (the client): each
 * incoming message goes to `intercept` with the receiver it would have reached (`deliver`),
 * which it calls, now or later. Interceptors compose: one installed over another keeps the
 * other's accessor, so the message passes through both (the last installed first). The
 * receiver is read when a message arrives, so a client connected later is found too.
 */
export function interceptIncoming(
  transport: Transport,
  intercept: (
    message: Parameters<OnMessage>[0],
    extra: Parameters<OnMessage>[1],
    deliver: OnMessage,
  ) => void,
): void {
  const previous = descriptorOf(transport);
  let own = previous && !previous.get ? (previous.value as OnMessage | undefined) : undefined;
  const read: () => OnMessage | undefined = previous?.get
    ? () => previous.get!.call(transport) as OnMessage | undefined
    : () => own;
  const write: (fn: OnMessage | undefined) => void = previous?.set
    ? (fn) => previous.set!.call(transport, fn)
    : (fn) => {
        own = fn;
      };
  const wrapped: OnMessage = (message, extra) => {
    const deliver = read();
    if (deliver) intercept(message, extra, deliver);
  };
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    enumerable: true,
    get: () => (read() ? wrapped : undefined),
    set: write,
  });
}
