/**
 * Summarizes V8 CPU profiles (from bench/profile-call.ts or `node --cpu-prof`):
 *
 *   npx tsx bench/profile-summary.ts [--calls=N] [--top=N] <file.cpuprofile>...
 *
 * Per profile: time by area (zod, the official client's protocol and transport, Muster,
 * the AI SDK, Node internals, GC, idle), the functions with the most self time, and the
 * inclusive time of the functions on a call's path. With `--calls`, figures are µs per call.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { CpuProfile, ProfileNode } from './cpu-profile.js';

/** The area a frame belongs to, from its script URL. */
function area(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (url === '') {
    if (functionName === '(garbage collector)') return 'GC';
    if (functionName === '(idle)') return 'idle (waiting for the server)';
    if (functionName === '(program)') return 'V8 / native (program)';
    return `native: ${functionName || '(anonymous)'}`;
  }
  if (url.includes('/node_modules/zod/')) return 'zod';
  if (url.includes('/@modelcontextprotocol/client/')) return 'official client';
  if (url.includes('/@modelcontextprotocol/core/')) return 'official core';
  if (url.includes('/@ai-sdk/')) return 'AI SDK';
  if (url.includes('/node_modules/ajv')) return 'ajv';
  if (url.includes('/src/')) return 'Muster (src)';
  if (url.startsWith('node:')) return 'Node internals';
  return `other: ${basename(url)}`;
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'} ${url ? `${basename(url)}:${lineNumber + 1}` : ''}`.trim();
}

function summarizeProfile(file: string, calls: number | undefined, top: number): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  let total = 0;
  // the profiler's own stop request (inspector `post`) is not part of a call
  const inInspector = (id: number): boolean => {
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur))
      if (byId.get(cur)!.callFrame.url === 'node:inspector') return true;
    return false;
  };
  profile.samples.forEach((id, i) => {
    if (inInspector(id)) return;
    const dt = profile.timeDeltas[i] ?? 0;
    self.set(id, (self.get(id) ?? 0) + dt);
    total += dt;
  });
  const per = (us: number) =>
    calls ? `${(us / calls).toFixed(1)} µs/call` : `${(us / 1000).toFixed(1)} ms`;
  const pct = (us: number) => `${((100 * us) / total).toFixed(1)}%`.padStart(6);
  const areas = new Map<string, number>();
  const selfByLabel = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, us] of self) {
    const node = byId.get(id)!;
    areas.set(area(node), (areas.get(area(node)) ?? 0) + us);
    selfByLabel.set(label(node), (selfByLabel.get(label(node)) ?? 0) + us);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const l = label(byId.get(cur)!);
      if (seen.has(l)) continue;
      seen.add(l);
      inclusive.set(l, (inclusive.get(l) ?? 0) + us);
    }
  }
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  const lines = [`== ${basename(file)}: ${per(total)} sampled`, '  by area:'];
  for (const [k, us] of sorted(areas)) lines.push(`    ${pct(us)} ${per(us).padStart(16)}  ${k}`);
  lines.push(`  top ${top} self:`);
  for (const [k, us] of sorted(selfByLabel).slice(0, top))
    lines.push(`    ${pct(us)} ${per(us).padStart(16)}  ${k}`);
  lines.push(`  top ${top} inclusive (non-root):`);
  const roots = /^\((root|program|idle|garbage collector)\)/;
  for (const [k, us] of sorted(inclusive)
    .filter(([k]) => !roots.test(k))
    .slice(0, top))
    lines.push(`    ${pct(us)} ${per(us).padStart(16)}  ${k}`);
  return lines.join('\n');
}

const flags = new Map(
  process.argv
    .slice(2)
    .filter((a) => a.startsWith('--'))
    .map((a) => a.slice(2).split('=') as [string, string]),
);
const files = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const calls = flags.has('calls') ? Number(flags.get('calls')) : undefined;
const top = Number(flags.get('top') ?? '25');
for (const f of files) process.stdout.write(`${summarizeProfile(f, calls, top)}\n\n`);
