import type { Wait } from '../session/index.js';
import { textTable } from './text-table.js';
import { truncate } from './truncate.js';
import { age } from './session-transcript.js';

/** How wide the `ARGUMENTS` column may grow before it is cut. */
const PREVIEW_CHARS = 60;

/**
 * The `sessions waits` table: session, wait id, kind, tool, a preview of the arguments (of
 * an approval; an elicitation's message), when it was created and when it expires.
 */
export function waitTable(waits: readonly Wait[], now = Date.now()): string[] {
  const rows = waits.map((w) => [
    w.sessionId,
    w.id,
    w.kind,
    w.toolName ?? w.server ?? '-',
    preview(w),
    `${age(w.createdAt, now)} ago`,
    w.expiresAt === undefined ? 'never' : expiry(w.expiresAt, now),
  ]);
  return textTable(['SESSION', 'WAIT', 'KIND', 'TOOL', 'ARGUMENTS', 'CREATED', 'EXPIRES'], rows);
}

/**
 * The command that decides `wait`, to copy (`suffix`, such as ` --store <url>`, appended): `--allow` for an approval (or `--deny`,
 * `--redirect <text>`), `--answer '<json>'` for a form; undefined for a kind `muster decide`
 * does not take (task and auth waits are settled by resuming or signing in).
 */
export function decideLine(wait: Wait, suffix = ''): string | undefined {
  const head = `muster decide ${wait.sessionId} ${wait.id}`;
  if (wait.kind === 'approval')
    return `${head} --allow${suffix}   (or --deny, --redirect "<message>")`;
  if (wait.kind === 'elicitation') return `${head} --answer '{"field":"value"}'${suffix}`;
  return undefined;
}

/**
 * What a run that parked prints (on stderr): each wait in one line, the `muster decide` line
 * of each, and the line that continues the run once they are decided (`suffix` appended to
 * both commands).
 */
export function parkedLines(sessionId: string, waits: readonly Wait[], suffix = ''): string[] {
  const lines = [`Parked: session ${sessionId} waits on ${waits.length} decision(s).`];
  for (const wait of waits) {
    lines.push(`  ${wait.kind} ${wait.id}: ${wait.toolName ?? wait.server ?? ''} ${preview(wait)}`);
    const decide = decideLine(wait, suffix);
    if (decide !== undefined) lines.push(`    ${decide}`);
  }
  lines.push(`Then continue it: muster sessions resume ${sessionId}${suffix}`);
  return lines;
}

/** An approval's arguments as JSON, an elicitation's message; cut to fit a line. */
function preview(wait: Wait): string {
  if (wait.arguments !== undefined) return truncate(JSON.stringify(wait.arguments), PREVIEW_CHARS);
  if (wait.message !== undefined) return truncate(JSON.stringify(wait.message), PREVIEW_CHARS);
  return '-';
}

/** `in 6d`, or `expired` once `iso` is past. */
function expiry(iso: string, now: number): string {
  const at = Date.parse(iso);
  if (at <= now) return 'expired';
  return `in ${age(new Date(now).toISOString(), at)}`;
}
