/**
 * What each import kind reads from a file: its fields (the names a mapping targets), which are
 * required, the header spellings each field is suggested for, and the natural key that makes the same
 * row in a later file a duplicate (skipped, never imported twice).
 */
export const IMPORT_KINDS = ['customers', 'loans', 'repayments', 'bank_transactions'] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

export type ImportField = { name: string; isRequired: boolean; aliases: readonly string[] };

const f = (name: string, isRequired: boolean, ...aliases: string[]): ImportField => ({ name, isRequired, aliases });

export const KIND_FIELDS: Record<ImportKind, readonly ImportField[]> = {
  customers: [
    f('external_id', true, 'externalid', 'customer_id', 'customerid', 'client_id', 'id', 'reference', 'ref'),
    f('first_name', true, 'firstname', 'first', 'given_name', 'prenom', 'prénom'),
    f('last_name', true, 'lastname', 'last', 'surname', 'family_name', 'nom'),
    f('national_id', false, 'nationalid', 'national_number', 'id_number', 'ssn'),
    f('phone', false, 'phone_number', 'mobile', 'telephone', 'téléphone'),
    f('email', false, 'e_mail', 'mail', 'email_address', 'courriel'),
    f('date_of_birth', false, 'dateofbirth', 'birth_date', 'birthdate', 'dob', 'date_de_naissance'),
    f('branch', false, 'branch_code', 'agence'),
    f('officer', false, 'officer_code', 'loan_officer'),
    f('segment', false),
    f('risk_class', false, 'riskclass', 'risk'),
  ],
  loans: [
    f('external_id', true, 'loan_external_id', 'loan_id', 'loanid', 'reference', 'ref'),
    f('customer_external_id', true, 'customer', 'customer_id', 'customerid', 'client_id'),
    f('product', true, 'product_code', 'loan_product'),
    f('principal', true, 'amount', 'loan_amount'),
    f('number_of_repayments', true, 'repayments_count', 'term', 'installments', 'number_of_installments'),
    f('annual_interest_rate', false, 'interest_rate', 'rate'),
    f('disbursed_on', true, 'disbursement_date', 'disbursed', 'date'),
    f('repayments', false, 'history', 'repayment_history', 'payments'),
  ],
  repayments: [
    f('external_id', true, 'repayment_id', 'payment_id', 'reference', 'ref', 'transaction_id'),
    f('loan', true, 'loan_external_id', 'loan_id', 'account_no', 'account_number', 'loan_account'),
    f('amount', true, 'paid', 'payment_amount'),
    f('date', true, 'paid_on', 'payment_date', 'value_date'),
    f('note', false, 'comment', 'description'),
  ],
  bank_transactions: [
    f('external_id', true, 'transaction_id', 'reference', 'ref', 'id'),
    f('customer_external_id', true, 'customer', 'customer_id', 'customerid', 'client_id'),
    f('date', true, 'booked_on', 'booking_date', 'value_date'),
    f('amount', true, 'value'),
    f('description', false, 'label', 'text', 'details'),
    f('category', false, 'type'),
    f('balance', false, 'balance_after'),
  ],
};

/** The data_import_keys kind of each import kind's natural key (customers use customers.external_id). */
export const KEY_KIND: Record<ImportKind, string> = {
  customers: 'customer',
  loans: 'loan',
  repayments: 'repayment',
  bank_transactions: 'bank_transaction',
};

export function isImportKind(value: unknown): value is ImportKind {
  return typeof value === 'string' && (IMPORT_KINDS as readonly string[]).includes(value);
}

/** field → the file's header it is read from ('' or absent: not read). */
export type ColumnMapping = Record<string, string>;

function normalise(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .trim()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
}

/** Suggests a header for every field by name (exact, then an alias), each header used once. */
export function suggestMapping(
  kind: ImportKind,
  headers: readonly string[],
  saved?: ColumnMapping | null,
): ColumnMapping {
  const mapping: ColumnMapping = {};
  const used = new Set<string>();
  const byName = new Map(headers.map((h) => [normalise(h), h]));
  for (const field of KIND_FIELDS[kind]) {
    const remembered = saved?.[field.name];
    if (remembered && headers.includes(remembered) && !used.has(remembered)) {
      mapping[field.name] = remembered;
      used.add(remembered);
      continue;
    }
    for (const candidate of [field.name, ...field.aliases]) {
      const header = byName.get(normalise(candidate));
      if (header !== undefined && !used.has(header)) {
        mapping[field.name] = header;
        used.add(header);
        break;
      }
    }
  }
  return mapping;
}

/** Keeps only the kind's fields mapped to headers of the file; an unknown header is a 400 naming the field. */
export function cleanMapping(kind: ImportKind, headers: readonly string[], raw: unknown): ColumnMapping {
  const mapping: ColumnMapping = {};
  const source = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  for (const field of KIND_FIELDS[kind]) {
    const value = source[field.name];
    if (typeof value !== 'string' || value === '') continue;
    mapping[field.name] = value;
  }
  return mapping;
}
