/**
 * The PostgreSQL server for tests (`DATABASE_URL`). Unset, the tests that need it skip with a
 * visible notice; unset under `CI=true`, that is a failure.
 */
export function databaseUrl(): string | undefined {
  const url = process.env['DATABASE_URL'];
  if (url) return url;
  if (process.env['CI'] === 'true')
    throw new Error('DATABASE_URL is not set, and CI=true: the PostgreSQL tests must run in CI.');
  console.warn('DATABASE_URL is not set: the PostgreSQL tests are skipped.');
  return undefined;
}
