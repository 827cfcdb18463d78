import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '#lib/auth/principal.ts';
import { setDb, type Db } from '#lib/db/index.ts';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { findTenant } from '#lib/tenancy/tenant.ts';
import * as customerById from '../../src/pages/v1/customers/[id]/index.ts';
import * as customers from '../../src/pages/v1/customers/index.ts';
import * as loanById from '../../src/pages/v1/loans/[id]/index.ts';
import * as repayments from '../../src/pages/v1/loans/[id]/repayments.ts';
import * as loans from '../../src/pages/v1/loans/index.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';

// Security goal 1 for the lending API: signed in to lender A, lender B's ids in the path, the query
// and the body read and change nothing of B's.
type Handler = (ctx: never) => Response | Promise<Response>;

function adminOf(tenantId: string): Principal {
  return {
    tenantId,
    userId: `admin-${tenantId}`,
    displayName: 'Admin',
    email: `admin@${tenantId}.test`,
    isAdmin: true,
    authorities: [],
    dataPermissions: [],
    language: 'en-US',
    via: 'session',
    sessionId: null,
    passwordChangeRequired: false,
    sessionTimeout: 60,
    idleTimeout: 60,
  };
}

async function call(
  db: Db,
  handler: Handler,
  principal: Principal,
  init: { url: string; body?: unknown; params?: Record<string, string>; headers?: Record<string, string> },
) {
  const url = new URL(init.url);
  const request = new Request(
    url,
    init.body === undefined
      ? { method: 'GET' }
      : {
          method: 'POST',
          body: JSON.stringify(init.body),
          headers: { 'content-type': 'application/json', ...init.headers },
        },
  );
  const tenant = await findTenant(db, principal.tenantId);
  const response = await handler({
    request,
    url,
    params: init.params ?? {},
    clientAddress: '127.0.0.1',
    locals: { requestId: 'iso-1', principal, tenant, language: 'en' },
  } as never);
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

describe.each(testDbKinds())('lending tenant isolation through the API on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let a: LendingFixture;
  let b: LendingFixture;
  let aLoan: string;
  let bLoan: string;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    setDb(db);
    a = await createLendingFixture(db, { tenantId: 'isoa-t1', currency: 'EUR' });
    b = await createLendingFixture(db, { tenantId: 'isob-t1', currency: 'USD' });
    aLoan = (await a.disbursedLoan()).loanId;
    bLoan = (await b.disbursedLoan()).loanId;
  });
  afterAll(() => drop?.());

  it("lists only A's loans and customers, whatever B ids the query carries", async () => {
    // Parameters the endpoint does not read are refused, naming the first (never applied, never a 500).
    const foreign = await call(db, loans.GET as Handler, adminOf(a.tenantId), {
      url: `http://localhost/v1/loans?status=ACTIVE&limit=50&tenant_id=${b.tenantId}&customer_id=${b.customerId}`,
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.field).toBe('tenant_id');
    const list = await call(db, loans.GET as Handler, adminOf(a.tenantId), {
      url: 'http://localhost/v1/loans?status=ACTIVE&limit=50',
    });
    expect(list.status).toBe(200);
    expect(list.body.items.map((l: { id: string }) => l.id)).toEqual([aLoan]);
    const people = await call(db, customers.GET as Handler, adminOf(a.tenantId), {
      url: 'http://localhost/v1/customers?search=Lovelace',
    });
    expect(people.body.items.map((c: { id: string }) => c.id)).toEqual([a.customerId]);
  });

  it("answers 404 for B's loan and customer by id", async () => {
    const loan = await call(db, loanById.GET as Handler, adminOf(a.tenantId), {
      url: `http://localhost/v1/loans/${bLoan}`,
      params: { id: bLoan },
    });
    expect(loan.status).toBe(404);
    const customer = await call(db, customerById.GET as Handler, adminOf(a.tenantId), {
      url: `http://localhost/v1/customers/${b.customerId}`,
      params: { id: b.customerId },
    });
    expect(customer.status).toBe(404);
  });

  it("cannot repay B's loan, and B's loan is unchanged", async () => {
    const before = await call(db, loanById.GET as Handler, adminOf(b.tenantId), {
      url: `http://localhost/v1/loans/${bLoan}`,
      params: { id: bLoan },
    });
    const attempt = await call(db, repayments.POST as Handler, adminOf(a.tenantId), {
      url: `http://localhost/v1/loans/${bLoan}/repayments`,
      params: { id: bLoan },
      body: { amount: '10.00' },
      headers: { 'idempotency-key': 'iso-repay-1' },
    });
    expect(attempt.status).toBe(404);
    const after = await call(db, loanById.GET as Handler, adminOf(b.tenantId), {
      url: `http://localhost/v1/loans/${bLoan}`,
      params: { id: bLoan },
    });
    expect(after.body.transactions).toEqual(before.body.transactions);
  });

  it('creates a customer in A only, even when the body names B', async () => {
    const created = await call(db, customers.POST as Handler, adminOf(a.tenantId), {
      url: 'http://localhost/v1/customers',
      body: { firstName: 'Grace', lastName: 'Hopper', tenantId: b.tenantId, tenant_id: b.tenantId },
    });
    expect(created.status).toBe(201);
    const inB = await db.tenant(b.tenantId, (tx) => tx.query(`select id from customers where last_name = 'Hopper'`));
    expect(inB).toEqual([]);
    const inA = await db.tenant(a.tenantId, (tx) =>
      tx.query<{ id: string }>(`select id::text as id from customers where last_name = 'Hopper'`),
    );
    expect(inA.map((r) => r.id)).toEqual([created.body.id]);
  });
});
