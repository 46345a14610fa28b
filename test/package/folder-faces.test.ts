import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// A folder's index.ts lists what the rest of the package uses, and nothing more; the package's
// entry points re-export public types declared once, never a second declaration of one.

const ROOT = resolve(import.meta.dirname, '../..');

/** The package's entry points (package.json `exports`), as source files. */
function entryPoints(): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { import?: string }>;
  };
  return Object.values(pkg.exports)
    .map((e) => (typeof e === 'string' ? e : e.import))
    .filter((p): p is string => p !== undefined && p.endsWith('.js'))
    .map((p) => p.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));
}

function program(): ts.Program {
  const read = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (p) => ts.sys.readFile(p));
  const config = ts.parseJsonConfigFileContent(read.config, ts.sys, ROOT);
  return ts.createProgram(config.fileNames, config.options);
}

/**
 * Names taken from `src/<folder>/index.ts` by each file outside the folder, or by a unit test
 * beside the code in it.
 */
function usesOfFaces(files: readonly ts.SourceFile[]): Map<string, Set<string>> {
  const uses = new Map<string, Set<string>>();
  for (const sf of files) {
    const from = relative(ROOT, sf.fileName);
    for (const node of sf.statements) {
      if (!ts.isImportDeclaration(node) && !ts.isExportDeclaration(node)) continue;
      const spec = node.moduleSpecifier;
      if (!spec || !ts.isStringLiteral(spec) || !spec.text.startsWith('.')) continue;
      const target = relative(ROOT, resolve(dirname(sf.fileName), spec.text));
      const face = /^src\/([^/]+)\/index\.js$/.exec(target)?.[1];
      // a unit test beside the code goes through its folder's face (STYLE), as a user would
      if (!face || (from.startsWith(`src/${face}/`) && !from.endsWith('.test.ts'))) continue;
      const names = uses.get(face) ?? new Set<string>();
      uses.set(face, names);
      if (ts.isImportDeclaration(node)) {
        const bindings = node.importClause?.namedBindings;
        if (bindings && ts.isNamedImports(bindings))
          for (const el of bindings.elements) names.add((el.propertyName ?? el.name).text);
        else if (bindings) names.add('*');
      } else if (node.exportClause && ts.isNamedExports(node.exportClause)) {
        for (const el of node.exportClause.elements) names.add((el.propertyName ?? el.name).text);
      } else names.add('*');
    }
  }
  return uses;
}

describe('folder faces and public types', () => {
  const prog = program();
  const checker = prog.getTypeChecker();
  const ours = prog
    .getSourceFiles()
    .filter((sf) => !relative(ROOT, sf.fileName).startsWith('node_modules'));
  const entries = entryPoints();

  it("exports from a folder's index.ts only what the rest of the package or a test uses", () => {
    const uses = usesOfFaces(ours);
    const unused: string[] = [];
    const folders = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    for (const folder of folders) {
      const face = `src/${folder}/index.ts`;
      // an entry point's exports are for the package's users
      if (entries.includes(face)) continue;
      const sf = prog.getSourceFile(join(ROOT, face));
      if (!sf) continue;
      const used = uses.get(folder) ?? new Set<string>();
      if (used.has('*')) continue;
      for (const sym of checker.getExportsOfModule(checker.getSymbolAtLocation(sf)!))
        if (!used.has(sym.name)) unused.push(`${face}: ${sym.name}`);
    }
    expect(unused).toEqual([]);
  });

  it('declares every public name once, whichever entry points export it', () => {
    expect(entries).toContain('src/index.ts');
    const declared = new Map<string, Set<string>>();
    for (const entry of entries) {
      const sf = prog.getSourceFile(join(ROOT, entry));
      expect(sf, entry).toBeDefined();
      for (const exported of checker.getExportsOfModule(checker.getSymbolAtLocation(sf!)!)) {
        const sym =
          exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
        const where = (sym.declarations ?? []).map(
          (d) => `${relative(ROOT, d.getSourceFile().fileName)}:${d.getStart()}`,
        );
        const places = declared.get(exported.name) ?? new Set<string>();
        declared.set(exported.name, places);
        places.add(where.sort().join(' + '));
      }
    }
    const twice = [...declared].filter(([, places]) => places.size > 1).map(([name]) => name);
    expect(twice).toEqual([]);
  });
});
