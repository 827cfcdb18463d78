import { AppError } from '#lib/errors/app-error.ts';
import type { Tx } from '#lib/db/index.ts';
import type { AccountCode } from './accounts.ts';
import type { JournalEntriesRow, JournalLinesRow } from '#lib/db/schema.generated.ts';

export type JournalLine = { account: AccountCode; debit?: bigint; credit?: bigint };

export type JournalEntryInput = {
  tenantId: string;
  /** Value date ('YYYY-MM-DD'), normally the command's transaction date. */
  date: string;
  currency: string;
  loanId?: string | null;
  transactionId?: string | null;
  description: string;
  postedBy?: string | null;
  lines: JournalLine[];
};

/**
 * Posts one balanced journal entry in the caller's transaction. Zero lines are dropped; negative
 * amounts flip side. The database checks the balance again at commit (deferred constraint trigger
 * journal_entries_balanced) and forbids any later change (app_forbid_change).
 * Returns the entry id, or null when every line was zero (nothing to post).
 */
export async function postJournalEntry(tx: Tx, entry: JournalEntryInput): Promise<string | null> {
  const lines: { account: AccountCode; debit: bigint; credit: bigint }[] = [];
  for (const line of entry.lines) {
    const net = (line.debit ?? 0n) - (line.credit ?? 0n);
    if (net === 0n) continue;
    lines.push(
      net > 0n ? { account: line.account, debit: net, credit: 0n } : { account: line.account, debit: 0n, credit: -net },
    );
  }
  if (lines.length === 0) return null;
  const debits = lines.reduce((s, l) => s + l.debit, 0n);
  const credits = lines.reduce((s, l) => s + l.credit, 0n);
  if (debits !== credits) {
    throw new AppError('INTERNAL', 'The accounting entry does not balance', {
      internal: `${entry.description}: debits ${debits} ≠ credits ${credits}`,
    });
  }
  const [{ id }] = await tx.query<Pick<JournalEntriesRow, 'id'>>(
    `insert into journal_entries (tenant_id, entry_date, currency, loan_id, transaction_id, description, posted_by)
     values ($1, $2, $3, $4, $5, $6, $7) returning id`,
    [
      entry.tenantId,
      entry.date,
      entry.currency,
      entry.loanId ?? null,
      entry.transactionId ?? null,
      entry.description,
      entry.postedBy ?? null,
    ],
  );
  const params: unknown[] = [];
  const values = lines.map((line, i) => {
    params.push(entry.tenantId, id, line.account, entry.currency, entry.loanId ?? null, line.debit, line.credit);
    const o = i * 7;
    return `($${o + 1}, $${o + 2}, $${o + 3}, $${o + 4}, $${o + 5}, $${o + 6}, $${o + 7})`;
  });
  await tx.query(
    `insert into journal_lines (tenant_id, entry_id, account_code, currency, loan_id, debit, credit) values ${values.join(', ')}`,
    params,
  );
  return id;
}

/** Lines of an earlier entry with debit and credit swapped (reversals). */
export async function mirrorLinesOf(tx: Tx, transactionId: string): Promise<JournalLine[]> {
  const rows = await tx.query<Pick<JournalLinesRow, 'debit' | 'credit'> & { account_code: AccountCode }>(
    `select l.account_code, l.debit, l.credit from journal_lines l
       join journal_entries e on e.tenant_id = l.tenant_id and e.id = l.entry_id
      where e.transaction_id = $1 order by l.id`,
    [transactionId],
  );
  return rows.map((r) => ({ account: r.account_code, debit: r.credit, credit: r.debit }));
}

/** Net balance of each account for one loan (debit − credit), from the ledger. */
export async function loanLedgerBalances(tx: Tx, loanId: string): Promise<Map<AccountCode, bigint>> {
  const rows = await tx.query<{ account_code: AccountCode; net: string }>(
    `select account_code, (sum(debit) - sum(credit))::text as net from journal_lines where loan_id = $1 group by account_code`,
    [loanId],
  );
  return new Map(rows.map((r) => [r.account_code, BigInt(r.net)]));
}
