import type { Queryable } from './database.js';

export interface PageQuery {
  /** The table (or join) the rows come from; every row has a `record` column. */
  from: string;
  /** Conditions joined with AND, using `$1…` of `params`; none: every row. */
  where: string[];
  params: unknown[];
  /** An ORDER BY list an index of the table serves (`created_at DESC, id DESC`). */
  orderBy: string;
  limit: number;
  offset: number;
}

/**
 * A page of records and the number of all matches, in one statement (one snapshot): the count is a
 * window over the matches, taken before LIMIT. Only a page past the end, which has no row to carry
 * the count, asks for it again.
 */
export async function selectPage<T>(db: Queryable, query: PageQuery): Promise<{ items: T[]; total: number }> {
  const where = query.where.length > 0 ? `WHERE ${query.where.join(' AND ')}` : '';
  const n = query.params.length;
  const { rows } = await db.query<{ record: T; total: string }>(
    `SELECT record, count(*) OVER () AS total FROM ${query.from} ${where} ORDER BY ${query.orderBy} LIMIT $${n + 1} OFFSET $${n + 2}`,
    [...query.params, query.limit, query.offset],
  );
  if (rows.length > 0) return { items: rows.map((row) => row.record), total: Number(rows[0]!.total) };
  if (query.offset === 0) return { items: [], total: 0 };
  const counted = await db.query<{ total: string }>(`SELECT count(*) AS total FROM ${query.from} ${where}`, query.params);
  return { items: [], total: Number(counted.rows[0]!.total) };
}

/** A record as a jsonb parameter. Always stringified: the driver would turn a JS array into a SQL array. */
export const asJson = (value: unknown): string => JSON.stringify(value);

/** A LIKE pattern (with `ESCAPE '\'`) for what starts with `prefix`: its `%`, `_` and `\` taken as characters (short ids). */
export const likePrefix = (prefix: string): string => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
