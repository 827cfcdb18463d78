export type Row = Record<string, unknown>;

/**
 * A connection inside one transaction. Parameters are positional ($1, $2…). Column types come back
 * as: int8 → bigint, numeric → string, date → 'YYYY-MM-DD' string, timestamptz → Date,
 * json/jsonb → parsed value. Cast counts to int in SQL (`count(*)::int`) when a number is wanted.
 */
export type Tx = {
  query<T = Row>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs several statements without parameters (DDL, migrations). */
  exec(text: string): Promise<void>;
};

export type TxOptions = {
  /** Default 'read committed'. Money commands use row locks under read committed. */
  isolation?: 'read committed' | 'repeatable read' | 'serializable';
  /** Attempts for serialization failures and deadlocks before answering CONFLICT. Default 5. */
  attempts?: number;
};

export type Db = {
  readonly kind: 'pglite' | 'postgres';
  /**
   * Runs fn in a transaction bound to one tenant: row-level security sees only that tenant's rows.
   * Every tenant-owned query goes through here.
   */
  tenant<T>(tenantId: string, fn: (tx: Tx) => Promise<T>, options?: TxOptions): Promise<T>;
  /**
   * Runs fn in a transaction with no tenant bound: tenant-owned tables look empty. For global
   * tables only (tenants, the sign-in directory, the job queue's claims).
   */
  system<T>(fn: (tx: Tx) => Promise<T>, options?: TxOptions): Promise<T>;
  /** Runs fn as the database owner, outside row-level security: migrations and test set-up only. */
  owner<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  close(): Promise<void>;
};
