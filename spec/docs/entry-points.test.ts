/**
 * The package's entry points (package.json `exports`) are what the guides and the API reference
 * say they are: the root keeps to the specification's names, the errors and the contract types;
 * every `import { … } from 'koa-model-api…'` in README.md and docs/*.md names something that entry
 * point exports; TypeDoc documents exactly these entry points, each under its package name. The
 * exports are read by the TypeScript compiler from the built declaration files (`npm run build`).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript-5';
import { repoRoot } from '../support/paths.js';

interface Manifest {
  readonly name: string;
  readonly exports: Record<string, { readonly types: string; readonly default: string }>;
}

interface Entry {
  /** The TypeScript source, from the repository root (`lib/auth/index.ts`). */
  readonly source: string;
  /** The built declaration file, absolute. */
  readonly types: string;
}

const root = repoRoot();
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;

/** Package name (`koa-model-api/auth`) → its entry point, in the order of `exports`. */
const ENTRIES = new Map<string, Entry>(
  Object.entries(manifest.exports).map(([subpath, target]) => [
    subpath === '.' ? manifest.name : `${manifest.name}/${subpath.replace(/^\.\//, '')}`,
    {
      source: target.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'),
      types: join(root, target.types),
    },
  ]),
);

/** The names the root exports besides the contract types of lib/types.ts, by why they are there. */
const ROOT_NAMES = {
  specification: [
    'Application',
    'ApplicationOptions',
    'ListenOptions',
    'PathKind',
    'CrudRouter',
    'CrudRouterOptions',
    'CrudRouterSettings',
    'CrudLikeOptions',
    'CrudLikeSettings',
    'WriteHooks',
    'WriteMode',
    'CamelAliases',
    'CamelCase',
    'FrameworkModel',
    'PROTECTED_FIELDS',
    'add_swagger_ui',
    'addSwaggerUi',
    'SwaggerHost',
    'SwaggerUiOptions',
    'AuthRouter',
    'AuthMixin',
  ],
  // Named by the type of `AuthMixin(…)`, so a user's `declaration: true` build can write it.
  declarationEmit: ['AuthModelConstructor', 'AuthModelFields'],
  errors: [
    'ApiError',
    'ConfigurationError',
    'ERROR_CATALOGUE',
    'ErrorCode',
    'FieldError',
    'ProblemDetails',
    'problemDetails',
    'problemMiddleware',
    'toApiError',
    'sendProblem',
    'securityHeaders',
    'consoleLogger',
    'Logger',
  ],
  composition: [
    'useAdapter',
    'adapterOf',
    'sessionOf',
    'DEFAULT_BODY_LIMIT',
    'GroupRouter',
    'allowedMethods',
    'AllowedMethodsSource',
  ],
} as const;

/** Every name each entry point (and lib/types.ts) exports, values and types alike. */
function exportedNames(): Map<string, Set<string>> {
  const contract = join(root, 'dist', 'lib', 'types.d.ts');
  const files = [...[...ENTRIES.values()].map((entry) => entry.types), contract];
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2023,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const namesOf = (path: string): Set<string> => {
    const file = program.getSourceFile(path);
    assert.ok(file !== undefined, `${relative(root, path)} is missing: run npm run build`);
    const symbol = checker.getSymbolAtLocation(file);
    assert.ok(symbol !== undefined, `${relative(root, path)} is not a module`);
    return new Set(checker.getExportsOfModule(symbol).map((exported) => exported.name));
  };
  const names = new Map([...ENTRIES].map(([name, entry]) => [name, namesOf(entry.types)]));
  names.set('lib/types', namesOf(contract));
  return names;
}

/** `import { … } from 'koa-model-api…'` statements of the TypeScript blocks of a Markdown file. */
function packageImports(markdown: string): { readonly specifier: string; readonly names: string[] }[] {
  const blocks = [...markdown.matchAll(/```ts\n([\s\S]*?)\n```/g)].map((match) => match[1] ?? '');
  return blocks.flatMap((code) =>
    [...code.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'(koa-model-api(?:\/[^']*)?)'/g)].map(
      (match) => ({
        specifier: match[2] ?? '',
        names: (match[1] ?? '')
          .split(',')
          .map((name) => name.trim().replace(/^type\s+/, ''))
          .filter((name) => name !== '')
          .map((name) => name.split(/\s+as\s+/)[0] ?? name),
      }),
    ),
  );
}

describe('entry points', () => {
  const exported = exportedNames();
  const contract = exported.get('lib/types') ?? new Set<string>();

  it('the root exports the specification names, the errors and the contract types, nothing else', () => {
    const expected = new Set<string>([...Object.values(ROOT_NAMES).flat(), ...contract]);
    assert.ok(contract.has('OrmAdapter') && contract.has('ModelDescription'), 'lib/types.ts read');
    assert.deepEqual([...(exported.get(manifest.name) ?? [])].sort(), [...expected].sort());
  });

  it('the adapter kit exports the contract types too', () => {
    const kit = exported.get(`${manifest.name}/adapter-kit`) ?? new Set<string>();
    assert.deepEqual(
      [...contract].filter((name) => !kit.has(name)),
      [],
    );
  });

  it('every import of the package in README.md and docs/*.md names what that entry point exports', () => {
    const guides = [
      'README.md',
      ...readdirSync(join(root, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => join('docs', name)),
    ];
    const wrong: string[] = [];
    let checked = 0;
    for (const guide of guides) {
      for (const { specifier, names } of packageImports(readFileSync(join(root, guide), 'utf8'))) {
        const available = exported.get(specifier);
        if (available === undefined) {
          wrong.push(`${guide}: '${specifier}' is no entry point of the package`);
          continue;
        }
        for (const name of names) {
          checked += 1;
          if (!available.has(name)) wrong.push(`${guide}: ${name} is not exported by '${specifier}'`);
        }
      }
    }
    assert.ok(checked > 20, `only ${checked} imported names found`);
    assert.deepEqual(wrong, []);
  });

  it('the API reference documents exactly the entry points, each named as it is imported', () => {
    const typedoc = JSON.parse(readFileSync(join(root, 'tools', 'typedoc', 'typedoc.json'), 'utf8')) as {
      readonly entryPoints: readonly string[];
    };
    const sources = [...ENTRIES.values()].map((entry) => entry.source);
    assert.deepEqual(
      typedoc.entryPoints.map((path) => relative(root, join(root, 'tools', 'typedoc', path))),
      sources,
      'tools/typedoc/typedoc.json entryPoints, in the order of package.json exports',
    );
    for (const [name, entry] of ENTRIES) {
      // TypeDoc names a module by the `@module` tag of the file's first comment.
      const first = /^\/\*\*[\s\S]*?\*\//.exec(readFileSync(join(root, entry.source), 'utf8'))?.[0] ?? '';
      assert.match(first, new RegExp(`@module ${name}\\s`), `${entry.source}: "@module ${name}"`);
    }
  });
});
