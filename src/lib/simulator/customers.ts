import type { Db } from '../db/index.ts';
import { addDays } from '../schedule/dates.ts';
import { makePerson, RISK_CLASSES, SEGMENTS, type Person } from './people.ts';
import type { Rng } from './prng.ts';
import type { SimOfficer } from './setup.ts';
import type { CustomersRow } from '../db/schema.generated.ts';

export type SimCustomer = {
  index: number;
  id: string;
  officerId: string;
  branchId: string;
  segment: string;
  riskClass: string;
  /** Typical monthly income, major units: sizes loans and bank flows. */
  monthlyIncome: number;
};

const BATCH = 2000;

/**
 * Inserts the customers in batches (one statement per batch), with their opt-in and risk-class
 * history, then a bank-account history of the last `bankMonths` months and the monthly metrics
 * derived from it (one set-based statement).
 */
export async function createCustomers(
  db: Db,
  tenantId: string,
  input: {
    rng: Rng;
    count: number;
    slug: string;
    officers: SimOfficer[];
    currency: string;
    unit: bigint;
    onboardedOn: string;
    today: string;
    bankMonths: number;
    offset: number;
  },
): Promise<SimCustomer[]> {
  const customers: SimCustomer[] = [];
  const prefix = input.currency === 'EUR' ? '+33' : '+1';
  for (let start = 0; start < input.count; start += BATCH) {
    const rows: {
      index: number;
      person: Person;
      officer: SimOfficer;
      segment: string;
      riskClass: string;
      isOptedOut: boolean;
      monthlyIncome: number;
    }[] = [];
    for (let k = start; k < Math.min(input.count, start + BATCH); k++) {
      const index = input.offset + k + 1;
      const person = makePerson(input.rng, index, input.slug, prefix);
      const officer = input.rng.pick(input.officers);
      const segment = input.rng.weighted([
        [SEGMENTS[0], 40],
        [SEGMENTS[1], 20],
        [SEGMENTS[2], 20],
        [SEGMENTS[3], 8],
        [SEGMENTS[4], 6],
        [SEGMENTS[5], 6],
      ] as const);
      const riskClass = input.rng.weighted([
        [RISK_CLASSES[0], 35],
        [RISK_CLASSES[1], 35],
        [RISK_CLASSES[2], 20],
        [RISK_CLASSES[3], 10],
      ] as const);
      const isOptedOut = input.rng.chance(0.08);
      const monthlyIncome = Math.round(
        (segment === 'student' ? 700 : segment === 'salaried' ? 2600 : 1800) * (0.5 + input.rng.next() * 1.5),
      );
      rows.push({ index, person, officer, segment, riskClass, isOptedOut, monthlyIncome });
    }
    const ids = await db.tenant(tenantId, async (tx) => {
      const inserted = await tx.query<Pick<CustomersRow, 'id' | 'external_id'>>(
        `insert into customers (tenant_id, external_id, first_name, last_name, national_id, phone, email, date_of_birth, branch_id,
           officer_id, segment, opt_in_status, risk_class, created_at)
         select $1, u.ext, u.fn, u.ln, u.nid, u.phone, u.email, u.dob, u.branch, u.officer, u.segment, u.opt, u.risk, $2::date
           from unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::date[], $10::uuid[], $11::uuid[],
                       $12::text[], $13::text[], $14::text[]) as u(ext, fn, ln, nid, phone, email, dob, branch, officer, segment, opt, risk)
         returning id, external_id`,
        [
          tenantId,
          input.onboardedOn,
          rows.map((r) => `SIM-${r.index}`),
          rows.map((r) => r.person.firstName),
          rows.map((r) => r.person.lastName),
          rows.map((r) => r.person.nationalId),
          rows.map((r) => r.person.phone),
          rows.map((r) => r.person.email),
          rows.map((r) => r.person.dateOfBirth),
          rows.map((r) => r.officer.branchId),
          rows.map((r) => r.officer.id),
          rows.map((r) => r.segment),
          rows.map((r) => (r.isOptedOut ? 'opted_out' : 'opted_in')),
          rows.map((r) => r.riskClass),
        ],
      );
      const byExt = new Map(inserted.map((r) => [r.external_id, r.id]));
      const idList = rows.map((r) => byExt.get(`SIM-${r.index}`)!);
      // Consent history: everyone opted in at onboarding; the opted-out later withdrew it.
      await tx.query(
        `insert into customer_opt_in_history (tenant_id, customer_id, status, reason, changed_by, changed_at)
         select $1, u.id, 'opted_in', 'Consent given at onboarding', 'simulator', $2::date from unnest($3::uuid[]) as u(id)`,
        [tenantId, input.onboardedOn, idList],
      );
      const optedOut = rows.map((r, i) => (r.isOptedOut ? idList[i] : null)).filter((x): x is string => x !== null);
      if (optedOut.length) {
        await tx.query(
          `insert into customer_opt_in_history (tenant_id, customer_id, status, reason, changed_by, changed_at)
           select $1, u.id, 'opted_out', 'Customer asked to stop marketing contact', 'simulator', $2::date from unnest($3::uuid[]) as u(id)`,
          [tenantId, addDays(input.onboardedOn, 30), optedOut],
        );
      }
      await tx.query(
        `insert into customer_risk_class_history (tenant_id, customer_id, risk_class, reason, changed_by, changed_at)
         select $1, u.id, u.risk, 'Initial scoring', 'simulator', $2::date from unnest($3::uuid[], $4::text[]) as u(id, risk)`,
        [tenantId, input.onboardedOn, idList, rows.map((r) => r.riskClass)],
      );
      return idList;
    });
    rows.forEach((r, i) =>
      customers.push({
        index: r.index,
        id: ids[i],
        officerId: r.officer.id,
        branchId: r.officer.branchId,
        segment: r.segment,
        riskClass: r.riskClass,
        monthlyIncome: r.monthlyIncome,
      }),
    );
    await insertBankHistory(db, tenantId, input, customers.slice(customers.length - rows.length));
  }
  await db.tenant(tenantId, (tx) =>
    tx.query(
      `insert into customer_transaction_metrics (tenant_id, customer_id, month, currency, inflow, outflow, net_flow, closing_balance,
         min_balance, transaction_count)
       select $1, customer_id, date_trunc('month', booked_on)::date, min(currency),
              coalesce(sum(amount) filter (where amount > 0), 0)::int8, coalesce(-sum(amount) filter (where amount < 0), 0)::int8,
              sum(amount)::int8, (array_agg(balance_after order by booked_on desc, balance_after))[1], min(balance_after), count(*)::int
         from customer_bank_transactions
        where customer_id = any($2::uuid[])
        group by customer_id, date_trunc('month', booked_on)
       on conflict do nothing`,
      [tenantId, customers.map((c) => c.id)],
    ),
  );
  return customers;
}

const OUTFLOWS = [
  ['rent', 'Rent', 0.3],
  ['groceries', 'Groceries', 0.12],
  ['utilities', 'Electricity and water', 0.06],
  ['transport', 'Transport', 0.05],
  ['telecom', 'Mobile phone', 0.02],
  ['groceries', 'Market', 0.08],
  ['transfer', 'Transfer to family', 0.1],
] as const;

async function insertBankHistory(
  db: Db,
  tenantId: string,
  input: { rng: Rng; currency: string; unit: bigint; today: string; bankMonths: number },
  customers: SimCustomer[],
): Promise<void> {
  const cols = {
    customer: [] as string[],
    date: [] as string[],
    amount: [] as string[],
    balance: [] as string[],
    category: [] as string[],
    description: [] as string[],
  };
  const monthStart = (d: string, back: number) => {
    const [y, m] = d.split('-').map(Number);
    const total = y * 12 + (m - 1) - back;
    return `${Math.floor(total / 12)}-${String((total % 12) + 1).padStart(2, '0')}-01`;
  };
  for (const c of customers) {
    let balance = BigInt(Math.round(c.monthlyIncome * (0.2 + input.rng.next()))) * input.unit;
    for (let back = input.bankMonths - 1; back >= 0; back--) {
      const first = monthStart(input.today, back);
      const events: { day: number; amount: bigint; category: string; description: string }[] = [];
      const income = BigInt(Math.round(c.monthlyIncome * (0.85 + input.rng.next() * 0.3))) * input.unit;
      const isBusiness = c.segment === 'micro_business' || c.segment === 'self_employed' || c.segment === 'farmer';
      if (isBusiness) {
        const parts = input.rng.int(3, 6);
        for (let p = 0; p < parts; p++)
          events.push({
            day: input.rng.int(1, 28),
            amount: income / BigInt(parts),
            category: 'sales',
            description: 'Customer payment',
          });
      } else {
        events.push({
          day: input.rng.int(25, 28),
          amount: income,
          category: c.segment === 'retired' ? 'pension' : 'salary',
          description: c.segment === 'retired' ? 'Pension' : 'Salary',
        });
      }
      for (const [category, description, share] of OUTFLOWS) {
        if (category !== 'rent' && input.rng.chance(0.25)) continue;
        const amount = BigInt(Math.round(c.monthlyIncome * share * (0.7 + input.rng.next() * 0.6))) * input.unit;
        events.push({ day: input.rng.int(1, 28), amount: -amount, category, description });
      }
      events.sort((a, b) => a.day - b.day);
      for (const e of events) {
        const date = `${first.slice(0, 8)}${String(e.day).padStart(2, '0')}`;
        if (date > input.today) continue;
        balance += e.amount;
        cols.customer.push(c.id);
        cols.date.push(date);
        cols.amount.push(e.amount.toString());
        cols.balance.push(balance.toString());
        cols.category.push(e.category);
        cols.description.push(e.description);
      }
    }
  }
  if (cols.customer.length === 0) return;
  await db.tenant(tenantId, (tx) =>
    tx.query(
      `insert into customer_bank_transactions (tenant_id, customer_id, booked_on, currency, amount, balance_after, category, description)
       select $1, u.c, u.d, $2, u.a, u.b, u.cat, u.descr
         from unnest($3::uuid[], $4::date[], $5::int8[], $6::int8[], $7::text[], $8::text[]) as u(c, d, a, b, cat, descr)`,
      [tenantId, input.currency, cols.customer, cols.date, cols.amount, cols.balance, cols.category, cols.description],
    ),
  );
}
