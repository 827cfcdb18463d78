import type { DomainEvent } from '../events/outbox.ts';
import type { CustomerSnapshot, LoanSnapshot } from './snapshot.ts';

/** What one run hands a target: the events after the cursor and the current rows they (or the snapshot) touch. */
export type SinkBatch = {
  events: DomainEvent[];
  customers: CustomerSnapshot[];
  loans: LoanSnapshot[];
};

/** Our id → the target's own id (Fineract), kept in the product database per sink. */
export type RemoteIds = {
  get(objectType: string, objectId: string): Promise<{ remoteId: number; state: string } | null>;
  set(objectType: string, objectId: string, remoteId: number, state: string): Promise<void>;
};

export type TargetContext = {
  tenantId: string;
  sinkId: string;
  remoteIds: RemoteIds;
  /** Default: the operator's ALLOW_PRIVATE_TARGETS. */
  allowPrivate?: boolean;
};

/**
 * An open connection to a sink's target. `write` must be idempotent by event id and object id: a
 * batch written twice (a crash before the cursor was saved, a replay) leaves the target as once.
 */
export type SinkTarget = {
  write(batch: SinkBatch): Promise<void>;
  close(): Promise<void>;
};

/** A short, single-line reason for people (no stack, no secrets), at most 500 characters. */
export function errorText(error: unknown): string {
  const text =
    error instanceof Error ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}` : String(error);
  return text.replace(/\s+/g, ' ').slice(0, 500);
}
