import type { SelectQueryBuilder } from 'kysely';

/**
 * A read port (floors.json): how a domain lets another one read its columns inside that one's own
 * query, when the read is hot enough that a second query would show (the session lookup behind
 * every authenticated request). The owner of the table writes the join, with its table's name;
 * the reader passes its query and the reference of its account column (`'s.uid'`), and gets the
 * same query with the owner's columns (`Extra`) added: still one query, compiled once.
 */
export type ColumnsJoin<Extra> = <DB, TB extends keyof DB, O>(qb: SelectQueryBuilder<DB, TB, O>, uidColumn: string) => SelectQueryBuilder<DB, TB, O & Extra>;
