/**
 * The API reference (`npm run docs:api`, TypeDoc with typedoc.json): it builds without a
 * warning, and every name each built entry point exports is in it, in the module named after
 * that entry point's subpath. TypeDoc runs once, in process, with the repository's
 * configuration (its JSON kept in memory; nothing written).
 */
import { resolve } from 'node:path';
import { Application, LogLevel, TSConfigReader, TypeDocReader } from 'typedoc';
import type { ProjectReflection } from 'typedoc';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildPackage, entryExports } from '../package/built-package.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** `.` -> `muster-agent`, `./openai` -> `muster-agent/openai`. */
const moduleName = (subpath: string) => `muster-agent${subpath === '.' ? '' : subpath.slice(1)}`;

let project: ProjectReflection | undefined;
let warnings: string[] = [];
let exported: Record<string, string[]>;

beforeAll(async () => {
  const cpu = process.cpuUsage();
  const started = Date.now();
  const app = await Application.bootstrapWithPlugins(
    { options: resolve(ROOT, 'typedoc.json'), logLevel: LogLevel.Warn },
    [new TypeDocReader(), new TSConfigReader()],
  );
  // collect what it would print (warnings and errors), instead of printing it
  const seen: string[] = [];
  app.logger.log = (message: string, level: LogLevel) => {
    if (level >= LogLevel.Warn) seen.push(message);
  };
  project = await app.convert();
  if (project) app.validate(project);
  warnings = seen;
  const used = process.cpuUsage(cpu);
  // measured for the README's suite table: TypeDoc's conversion is most of this file's time
  console.log(
    `typedoc: ${Date.now() - started} ms wall, ${Math.round((used.user + used.system) / 1000)} ms CPU`,
  );
  exported = entryExports(buildPackage().dir);
}, 180_000);

describe('npm run docs:api', () => {
  it('builds without a warning', () => {
    expect(project).toBeDefined();
    expect(warnings).toEqual([]);
  });

  it('documents every name each built entry point exports, in the module of its subpath', () => {
    const modules = new Map(
      (project?.children ?? []).map((m) => [
        m.name,
        new Set((m.children ?? []).map((c) => c.name)),
      ]),
    );
    expect(Object.keys(exported).length).toBeGreaterThan(5);
    const missing: string[] = [];
    for (const [subpath, names] of Object.entries(exported)) {
      const documented = modules.get(moduleName(subpath));
      if (!documented) {
        missing.push(`${moduleName(subpath)}: no module in the reference`);
        continue;
      }
      for (const entry of names) {
        const name = entry.replace(/ \(type\)$/, '');
        if (!documented.has(name)) missing.push(`${moduleName(subpath)}: ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
