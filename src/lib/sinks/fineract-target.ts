import { currencyDigits, fromMinor, toDecimalString } from '../money/money.ts';
import { checkTargetUrl, sendHttp } from '../net/outbound.ts';
import type { FineractSettings } from './settings.ts';
import type { CustomerSnapshot, LoanSnapshot } from './snapshot.ts';
import type { SinkBatch, SinkTarget, TargetContext } from './target.ts';

/**
 * The Fineract sink's target: customers become Fineract clients and loans Fineract loans, through its
 * REST API (`<base>/fineract-provider/api/v1/...`, HTTP basic auth, the `Fineract-Platform-TenantId`
 * header, dates sent with `dateFormat` and `locale` as Fineract documents). Every request goes through
 * the outbound guard (`sendHttp`: public addresses only, redirects not followed).
 *
 * Idempotency: `event_sink_remote_ids` keeps our id → Fineract's resource id (and how far the object
 * was pushed). An object without a mapping is first looked up by its `externalId` (our id), so one
 * created just before a crash is found, not created twice. Then:
 *  - a client is created (`POST /clients`), or updated (`PUT /clients/{id}`) when its version moved;
 *  - a loan is created (`POST /loans`), approved (`POST /loans/{id}?command=approve`) and disbursed
 *    (`?command=disburse`) as ours moves; each repayment is posted once
 *    (`POST /loans/{id}/transactions?command=repayment`, externalId = our transaction id).
 * Events themselves are not sent: Fineract has no table for them.
 */

const DATE_FORMAT = 'yyyy-MM-dd';
const LOCALE = 'en';
const FREQUENCY: Record<string, number> = { DAYS: 0, WEEKS: 1, MONTHS: 2 };

type Answer = { status: number; body: Record<string, unknown> };

export function fineractClient(settings: FineractSettings, ctx: Pick<TargetContext, 'allowPrivate'>) {
  const root = checkTargetUrl(settings.baseUrl, 'baseUrl', ['https:', 'http:'], ctx);
  const base = `${root.origin}${root.pathname.replace(/\/+$/, '')}/fineract-provider/api/v1`;
  const auth = Buffer.from(`${settings.username}:${settings.password}`).toString('base64');
  return async function call(method: string, path: string, body?: unknown): Promise<Answer> {
    const answer = await sendHttp(`${base}${path}`, {
      method,
      headers: {
        authorization: `Basic ${auth}`,
        'fineract-platform-tenantid': settings.tenantIdentifier,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: 30_000,
      allowPrivate: ctx.allowPrivate,
    });
    let parsed: Record<string, unknown>;
    try {
      parsed = answer.body ? (JSON.parse(answer.body) as Record<string, unknown>) : {};
    } catch {
      parsed = {};
    }
    if (answer.status < 200 || answer.status >= 300) {
      const reason =
        (parsed.defaultUserMessage as string | undefined) ?? (parsed.developerMessage as string | undefined) ?? '';
      throw new Error(
        `Fineract ${method} ${path.split('?')[0]} answered ${answer.status}${reason ? `: ${reason}` : ''}`,
      );
    }
    return { status: answer.status, body: parsed };
  };
}

const amount = (minor: bigint, currency: string) => toDecimalString(fromMinor(minor, currency));

function resourceIdOf(body: Record<string, unknown>): number {
  const id = body.resourceId ?? body.clientId ?? body.loanId;
  if (typeof id !== 'number') throw new Error('Fineract gave no resourceId');
  return id;
}

type Found = { id: number; state: string };

/** Fineract's loan status (`status.pendingApproval`, `waitingForDisbursal`, …) as how far we pushed it. */
function loanStateOf(item: { status?: Record<string, unknown> }): string {
  const status = item.status ?? {};
  if (status.pendingApproval) return 'submitted';
  if (status.waitingForDisbursal) return 'approved';
  return 'disbursed';
}

async function findByExternalId(
  call: ReturnType<typeof fineractClient>,
  resource: 'clients' | 'loans',
  externalId: string,
): Promise<Found | null> {
  const { body } = await call('GET', `/${resource}?externalId=${encodeURIComponent(externalId)}`);
  const items = (body.pageItems as { id?: number; status?: Record<string, unknown> }[] | undefined) ?? [];
  const item = items[0];
  if (typeof item?.id !== 'number') return null;
  return { id: item.id, state: resource === 'loans' ? loanStateOf(item) : 'found' };
}

export async function openFineractTarget(settings: FineractSettings, ctx: TargetContext): Promise<SinkTarget> {
  const call = fineractClient(settings, ctx);
  const ids = ctx.remoteIds;

  async function pushClient(c: CustomerSnapshot): Promise<number> {
    const state = `v${c.version}`;
    let mapped = await ids.get('client', c.id);
    if (!mapped) {
      const found = await findByExternalId(call, 'clients', c.id);
      if (found !== null) {
        await ids.set('client', c.id, found.id, found.state);
        mapped = { remoteId: found.id, state: found.state };
      }
    }
    const fields = {
      firstname: c.first_name,
      lastname: c.last_name,
      ...(c.phone ? { mobileNo: c.phone } : {}),
      ...(c.email ? { emailAddress: c.email } : {}),
    };
    if (!mapped) {
      const created = c.created_at.slice(0, 10);
      const { body } = await call('POST', '/clients', {
        officeId: settings.officeId,
        legalFormId: 1,
        ...fields,
        externalId: c.id,
        active: true,
        activationDate: created,
        submittedOnDate: created,
        dateFormat: DATE_FORMAT,
        locale: LOCALE,
      });
      const remoteId = resourceIdOf(body);
      await ids.set('client', c.id, remoteId, state);
      return remoteId;
    }
    if (mapped.state !== state) {
      await call('PUT', `/clients/${mapped.remoteId}`, fields);
      await ids.set('client', c.id, mapped.remoteId, state);
    }
    return mapped.remoteId;
  }

  async function pushLoan(l: LoanSnapshot, clientId: number): Promise<void> {
    if (['REJECTED', 'WITHDRAWN_BY_CLIENT'].includes(l.status) && !(await ids.get('loan', l.id))) return;
    let mapped = await ids.get('loan', l.id);
    if (!mapped) {
      const found = await findByExternalId(call, 'loans', l.id);
      if (found !== null) {
        await ids.set('loan', l.id, found.id, found.state);
        mapped = { remoteId: found.id, state: found.state };
      }
    }
    const digits = currencyDigits(l.currency);
    if (!mapped) {
      const frequency = FREQUENCY[l.repayment_frequency] ?? 2;
      const { body } = await call('POST', '/loans', {
        clientId,
        productId: settings.loanProductId,
        loanType: 'individual',
        externalId: l.id,
        principal: amount(l.principal, l.currency),
        loanTermFrequency: l.number_of_repayments * l.repayment_every,
        loanTermFrequencyType: frequency,
        numberOfRepayments: l.number_of_repayments,
        repaymentEvery: l.repayment_every,
        repaymentFrequencyType: frequency,
        // Fineract's rate is per its own period (here: per year, interestRateFrequencyType 3 on the product).
        interestRatePerPeriod: Number(l.annual_interest_rate),
        amortizationType: 1,
        interestType: 0,
        interestCalculationPeriodType: 1,
        transactionProcessingStrategyCode: 'mifos-standard-strategy',
        expectedDisbursementDate: l.expected_disbursement_date ?? l.disbursed_on ?? l.submitted_on,
        submittedOnDate: l.submitted_on,
        dateFormat: DATE_FORMAT,
        locale: LOCALE,
      });
      mapped = { remoteId: resourceIdOf(body), state: 'submitted' };
      await ids.set('loan', l.id, mapped.remoteId, 'submitted');
    }
    if (mapped.state === 'submitted' && l.approved_on) {
      await call('POST', `/loans/${mapped.remoteId}?command=approve`, {
        approvedOnDate: l.approved_on,
        dateFormat: DATE_FORMAT,
        locale: LOCALE,
      });
      mapped = { ...mapped, state: 'approved' };
      await ids.set('loan', l.id, mapped.remoteId, 'approved');
    }
    if (mapped.state === 'approved' && l.disbursed_on) {
      await call('POST', `/loans/${mapped.remoteId}?command=disburse`, {
        actualDisbursementDate: l.disbursed_on,
        transactionAmount: amount(l.principal, l.currency),
        dateFormat: DATE_FORMAT,
        locale: LOCALE,
      });
      mapped = { ...mapped, state: 'disbursed' };
      await ids.set('loan', l.id, mapped.remoteId, 'disbursed');
    }
    if (mapped.state !== 'disbursed') return;
    const reversed = new Set(l.transactions.map((t) => t.reverses_id).filter(Boolean));
    for (const t of l.transactions) {
      if (t.type !== 'REPAYMENT' || reversed.has(t.id) || (await ids.get('transaction', t.id))) continue;
      const { body } = await call('POST', `/loans/${mapped.remoteId}/transactions?command=repayment`, {
        transactionDate: t.transaction_date,
        transactionAmount: toDecimalString({ minor: t.amount, currency: t.currency, digits }),
        externalId: t.id,
        dateFormat: DATE_FORMAT,
        locale: LOCALE,
      });
      await ids.set('transaction', t.id, resourceIdOf(body), 'posted');
    }
  }

  return {
    async write(batch: SinkBatch) {
      const clients = new Map<string, number>();
      for (const c of batch.customers) clients.set(c.id, await pushClient(c));
      for (const l of batch.loans) {
        const clientId = clients.get(l.customer_id) ?? (await ids.get('client', l.customer_id))?.remoteId;
        if (clientId === undefined)
          throw new Error(`customer ${l.customer_id} of loan ${l.account_no} is not in Fineract yet`);
        await pushLoan(l, clientId);
      }
    },
    async close() {},
  };
}

/** "Test connection": an authenticated read of one client page. */
export async function testFineractTarget(
  settings: FineractSettings,
  ctx: Pick<TargetContext, 'allowPrivate'>,
): Promise<string> {
  const call = fineractClient(settings, ctx);
  const { body } = await call('GET', '/clients?limit=1');
  return `Fineract ${settings.baseUrl} (tenant ${settings.tenantIdentifier}): ${Number(body.totalFilteredRecords ?? 0)} clients`;
}
