import type { LoggingLevel } from '@modelcontextprotocol/client';
import type { McpHandlers } from '../contracts/handler-types.js';

/**
 * Hands a `notifications/message` to the host's logging handler (its failures are swallowed);
 * `principal` when it came on that principal's own connection.
 */
export function deliverLog(
  server: string,
  logging: NonNullable<McpHandlers['logging']>,
  params: unknown,
  principal?: string,
): void {
  const p = (params ?? {}) as { level?: LoggingLevel; logger?: string; data?: unknown };
  try {
    logging({
      server,
      ...(principal === undefined ? {} : { principal }),
      level: p.level ?? 'info',
      ...(typeof p.logger === 'string' ? { logger: p.logger } : {}),
      data: p.data,
    });
  } catch {
    // a logging handler must not break the connection
  }
}
