/**
 * Resolves an unqualified `{@link Name}` that TypeScript cannot resolve through the `global` entry
 * of `externalSymbolLinkMappings`, as TypeDoc already does for qualified ones. Needed because
 * `MikroOrmConnectOptions` inherits MikroORM's `Options`, whose comment links `FileCacheAdapter`
 * from a file that does not import it; without a target, `invalidLink` would fail the build.
 */
export function load(app) {
  app.converter.addUnknownSymbolResolver((ref) => {
    if (ref.moduleSource !== undefined || ref.symbolReference?.path === undefined) return undefined;
    const name = ref.symbolReference.path.map((part) => part.path).join('.');
    const url = app.options.getValue('externalSymbolLinkMappings').global?.[name];
    return typeof url === 'string' ? url : undefined;
  });
}
