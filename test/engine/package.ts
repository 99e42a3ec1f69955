// The package the engine-kit tests run against. test/run.mjs overwrites this file in each package's
// staged copy; this one stands in for the typecheck.
export const PKG: string = 'keel'
