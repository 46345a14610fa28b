import type { Database, Statement } from 'better-sqlite3';

/**
 * Prepared statements of one database, prepared once per SQL text: every step of every run
 * commits, and preparing the same statement again on each commit costs more than running it.
 */
export function statementCache(db: Database): (sql: string) => Statement {
  const prepared = new Map<string, Statement>();
  return (sql) => {
    let statement = prepared.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      prepared.set(sql, statement);
    }
    return statement;
  };
}
