import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { TFunction } from 'i18next';
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import { need } from '../auth/permissions.ts';
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { defineCommand } from '../http/command.ts';
import { getT } from '../i18n/index.ts';
import type { Actor } from '../lending/actor.ts';
import type { ContractSignatoriesRow, ContractsRow } from '../db/schema.generated.ts';

/**
 * The tenant's service agreements with the provider (admin > plan and contracts > contracts).
 *
 * Permissions (spec §6 names three actions on contracts):
 * - `admin.contracts.view`: list them, open one, download its document;
 * - `admin.contracts.edit`: add a contract and change its fields (title, reference, dates, notes,
 *   signatories);
 * - `admin.contracts.update`: upload a new version of its document (a PDF, at most 10 MB, checked by
 *   its first bytes) and move its status (draft, active, expired, terminated).
 *
 * The document lives on disk under DATA_DIR/contracts/<tenant>/<contract id>/<version>.pdf; the row
 * names the current version. Every change is audited with before and after.
 */
export const CONTRACT_STATUSES = ['draft', 'active', 'expired', 'terminated'] as const;
export type ContractStatus = (typeof CONTRACT_STATUSES)[number];
export const CONTRACT_DOCUMENT_MAX_BYTES = 10 * 1024 * 1024;
/** An active contract ending within this many days is flagged "expires in N days". */
export const EXPIRY_WARNING_DAYS = 60;
export const MAX_SIGNATORIES = 10;

export type Signatory = { name: string; title: string; signedOn: string | null };

export type Contract = {
  id: string;
  title: string;
  reference: string;
  status: ContractStatus;
  startsOn: string;
  endsOn: string | null;
  notes: string;
  document: { name: string; sizeBytes: number; version: number; uploadedAt: Date | null; sha256: string } | null;
  signatories: Signatory[];
  createdAt: Date;
  updatedAt: Date;
};

type Row = Omit<ContractsRow, 'tenant_id' | 'status'> & { status: ContractStatus };
type SignatoryRow = Pick<ContractSignatoriesRow, 'contract_id' | 'position' | 'name' | 'title' | 'signed_on'>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function toContract(r: Row, signatories: SignatoryRow[]): Contract {
  return {
    id: r.id,
    title: r.title,
    reference: r.reference,
    status: r.status,
    startsOn: r.starts_on,
    endsOn: r.ends_on,
    notes: r.notes,
    document:
      r.document_key && r.document_name
        ? {
            name: r.document_name,
            sizeBytes: Number(r.document_size ?? 0n),
            version: r.document_version,
            uploadedAt: r.document_uploaded_at,
            sha256: r.document_sha256 ?? '',
          }
        : null,
    signatories: signatories
      .filter((s) => s.contract_id === r.id)
      .sort((a, b) => a.position - b.position)
      .map((s) => ({ name: s.name, title: s.title, signedOn: s.signed_on })),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export async function listContracts(tx: Tx): Promise<Contract[]> {
  const rows = await tx.query<Row>('select * from contracts order by starts_on desc, reference');
  const signatories = await tx.query<SignatoryRow>(
    'select contract_id, position, name, title, signed_on from contract_signatories order by contract_id, position',
  );
  return rows.map((r) => toContract(r, signatories));
}

/** One contract; an unknown or malformed id is NOT_FOUND. */
export async function getContract(tx: Tx, id: string): Promise<Contract> {
  if (!UUID.test(id)) throw new AppError('NOT_FOUND', 'This contract does not exist.', { field: 'id' });
  const [row] = await tx.query<Row>('select * from contracts where id = $1', [id]);
  if (!row) throw new AppError('NOT_FOUND', 'This contract does not exist.', { field: 'id' });
  const signatories = await tx.query<SignatoryRow>(
    'select contract_id, position, name, title, signed_on from contract_signatories where contract_id = $1',
    [id],
  );
  return toContract(row, signatories);
}

/** Days from `today` to the contract's end (negative once past), or null without an end date. */
export function daysToEnd(contract: Pick<Contract, 'endsOn'>, today: string): number | null {
  if (!contract.endsOn) return null;
  return Math.round((Date.parse(`${contract.endsOn}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / 86_400_000);
}

/** The warning a contract deserves today: ending soon, or past its end date while still active. */
export function expiryWarning(
  contract: Pick<Contract, 'endsOn' | 'status'>,
  today: string,
): { kind: 'ends-soon' | 'past-end'; days: number } | null {
  if (contract.status !== 'active') return null;
  const days = daysToEnd(contract, today);
  if (days === null) return null;
  if (days < 0) return { kind: 'past-end', days: -days };
  if (days <= EXPIRY_WARNING_DAYS) return { kind: 'ends-soon', days };
  return null;
}

export function contractJson(c: Contract) {
  return {
    id: c.id,
    title: c.title,
    reference: c.reference,
    status: c.status,
    starts_on: c.startsOn,
    ends_on: c.endsOn,
    notes: c.notes,
    document: c.document
      ? {
          name: c.document.name,
          size_bytes: c.document.sizeBytes,
          version: c.document.version,
          uploaded_at: c.document.uploadedAt?.toISOString() ?? null,
          sha256: c.document.sha256,
          href: `/v1/contracts/${c.id}/document`,
        }
      : null,
    signatories: c.signatories.map((s) => ({ name: s.name, title: s.title, signed_on: s.signedOn })),
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

// ------------------------------------------------------------------------------------------------
// Input

const DATE = /^\d{4}-\d{2}-\d{2}$/;
function isRealDate(text: string): boolean {
  if (!DATE.test(text)) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text;
}

const signatorySchema = z.object({
  name: z.string().max(200).default(''),
  title: z.string().max(200).default(''),
  signedOn: z.string().max(10).nullable().default(null),
});

export const contractFieldsSchema = z.object({
  title: z.string().max(200),
  reference: z.string().max(100),
  startsOn: z.string().max(10),
  endsOn: z.string().max(10).nullable().default(null),
  notes: z.string().max(2000).default(''),
  signatories: z.array(signatorySchema).max(MAX_SIGNATORIES).default([]),
});
export type ContractFields = z.infer<typeof contractFieldsSchema>;

/** The fields a plain form posts (`signatories[0].name`, …) as the command's input. */
export function contractFieldsFromForm(values: Record<string, string>): Record<string, unknown> {
  const signatories: Record<string, unknown>[] = [];
  for (let i = 0; i < MAX_SIGNATORIES; i++) {
    const name = values[`signatories[${i}].name`] ?? '';
    const title = values[`signatories[${i}].title`] ?? '';
    const signedOn = values[`signatories[${i}].signedOn`] ?? '';
    if (name.trim() || title.trim() || signedOn.trim()) signatories.push({ name, title, signedOn: signedOn || null });
  }
  return {
    title: values.title ?? '',
    reference: values.reference ?? '',
    startsOn: values.startsOn ?? '',
    endsOn: values.endsOn ? values.endsOn : null,
    notes: values.notes ?? '',
    signatories,
  };
}

/** Checks fields a schema cannot word for people; returns them cleaned. */
function checkFields(t: TFunction, f: ContractFields): ContractFields {
  const title = f.title.trim();
  const reference = f.reference.trim();
  if (!title) throw new AppError('BAD_REQUEST', t('platform:contracts.errors.title'), { field: 'title' });
  if (!reference) throw new AppError('BAD_REQUEST', t('platform:contracts.errors.reference'), { field: 'reference' });
  if (!isRealDate(f.startsOn))
    throw new AppError('BAD_REQUEST', t('platform:contracts.errors.date'), { field: 'startsOn' });
  const endsOn = f.endsOn?.trim() ? f.endsOn.trim() : null;
  if (endsOn !== null && !isRealDate(endsOn))
    throw new AppError('BAD_REQUEST', t('platform:contracts.errors.date'), { field: 'endsOn' });
  if (endsOn !== null && endsOn < f.startsOn)
    throw new AppError('BAD_REQUEST', t('platform:contracts.errors.endBeforeStart'), { field: 'endsOn' });
  const signatories = f.signatories.map((s, i) => {
    const name = s.name.trim();
    if (!name)
      throw new AppError('BAD_REQUEST', t('platform:contracts.errors.signatoryName', { n: i + 1 }), {
        field: `signatories[${i}].name`,
      });
    const signedOn = s.signedOn?.trim() ? s.signedOn.trim() : null;
    if (signedOn !== null && !isRealDate(signedOn))
      throw new AppError('BAD_REQUEST', t('platform:contracts.errors.date'), { field: `signatories[${i}].signedOn` });
    return { name, title: s.title.trim(), signedOn };
  });
  return { title, reference, startsOn: f.startsOn, endsOn, notes: f.notes.trim(), signatories };
}

function auditable(c: Contract) {
  return {
    title: c.title,
    reference: c.reference,
    status: c.status,
    startsOn: c.startsOn,
    endsOn: c.endsOn,
    notes: c.notes,
    signatories: c.signatories,
    document: c.document ? { name: c.document.name, version: c.document.version, sha256: c.document.sha256 } : null,
  };
}

async function audit(tx: Tx, actor: Actor, action: string, id: string, before: Contract | null, after: Contract) {
  await recordAudit(tx, {
    ...auditActor(actor),
    action,
    objectType: 'contract',
    objectId: id,
    before: before ? auditable(before) : null,
    after: auditable(after),
    outcome: 'success',
  });
}

async function writeSignatories(tx: Tx, tenantId: string, contractId: string, list: Signatory[]): Promise<void> {
  await tx.query('delete from contract_signatories where contract_id = $1', [contractId]);
  for (const [i, s] of list.entries())
    await tx.query(
      'insert into contract_signatories (tenant_id, contract_id, position, name, title, signed_on) values ($1, $2, $3, $4, $5, $6)',
      [tenantId, contractId, i, s.name, s.title, s.signedOn],
    );
}

async function refuseDuplicateReference(tx: Tx, t: TFunction, reference: string, exceptId: string | null) {
  const [row] = await tx.query<Pick<ContractsRow, 'id'>>(
    'select id from contracts where reference = $1 and ($2::uuid is null or id <> $2::uuid)',
    [reference, exceptId],
  );
  if (row) throw new AppError('CONFLICT', t('platform:contracts.errors.duplicateReference'), { field: 'reference' });
}

// ------------------------------------------------------------------------------------------------
// Documents

export function contractsRoot(dataDir: string): string {
  return path.join(dataDir, 'contracts');
}

function documentPath(dataDir: string, key: string): string {
  const root = path.resolve(contractsRoot(dataDir));
  const full = path.resolve(root, key);
  if (!full.startsWith(root + path.sep)) throw new AppError('INTERNAL', 'Bad storage key', { internal: key });
  return full;
}

export type ContractDocument = { fileName: string; bytes: Uint8Array };

/** A PDF is recognised by its first bytes, whatever its name or declared type says. */
export function isPdf(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.subarray(0, 5)).toString('latin1') === '%PDF-';
}

function cleanDocumentName(name: string): string {
  const base = (name.split(/[\\/]/).pop() ?? '')
    // eslint-disable-next-line no-control-regex -- control characters are exactly what this strips
    .replace(/[\u0000-\u001f\u007f"]/g, '')
    .trim()
    .slice(0, 200);
  return base && base !== '.' && base !== '..' ? base : 'contract.pdf';
}

function checkDocument(t: TFunction, doc: ContractDocument): void {
  if (doc.bytes.byteLength > CONTRACT_DOCUMENT_MAX_BYTES)
    throw new AppError('PAYLOAD_TOO_LARGE', t('platform:contracts.errors.tooLarge'), { field: 'document' });
  if (!isPdf(doc.bytes))
    throw new AppError('BAD_REQUEST', t('platform:contracts.errors.notPdf'), { field: 'document' });
}

/** Stores the next version of the document and points the row at it (inside the caller's transaction). */
async function storeDocument(tx: Tx, actor: Actor, dataDir: string, id: string, doc: ContractDocument): Promise<void> {
  const [{ document_version }] = await tx.query<Pick<ContractsRow, 'document_version'>>(
    'select document_version from contracts where id = $1 for update',
    [id],
  );
  const version = document_version + 1;
  const key = [encodeURIComponent(actor.tenantId), id, `${version}.pdf`].join('/');
  const full = documentPath(dataDir, key);
  fs.mkdirSync(path.dirname(full), { recursive: true });
  const temp = `${full}.${process.pid}.tmp`;
  fs.writeFileSync(temp, doc.bytes);
  fs.renameSync(temp, full);
  const sha256 = crypto.createHash('sha256').update(doc.bytes).digest('hex');
  await tx.query(
    `update contracts set document_name = $2, document_size = $3, document_sha256 = $4, document_key = $5,
            document_version = $6, document_uploaded_at = now(), updated_at = now() where id = $1`,
    [id, cleanDocumentName(doc.fileName), doc.bytes.byteLength, sha256, key, version],
  );
}

/** The current document of a contract, for GET /v1/contracts/{id}/document. */
export async function openContractDocument(
  tx: Tx,
  dataDir: string,
  id: string,
): Promise<{ contract: Contract; path: string }> {
  const contract = await getContract(tx, id);
  const [row] = await tx.query<Pick<ContractsRow, 'document_key'>>('select document_key from contracts where id = $1', [
    id,
  ]);
  if (!contract.document || !row?.document_key)
    throw new AppError('NOT_FOUND', 'This contract has no document.', { field: 'document' });
  const full = documentPath(dataDir, row.document_key);
  if (!fs.existsSync(full))
    throw new AppError('NOT_FOUND', 'The document is no longer available.', { field: 'document' });
  return { contract, path: full };
}

// ------------------------------------------------------------------------------------------------
// Commands

/** Adds a contract (admin.contracts.edit), in draft, with an optional first document. */
export function createContractCommand(dataDir: string) {
  return defineCommand({
    action: 'contract.create',
    objectType: 'contract',
    permission: need('admin.contracts.edit'),
    input: contractFieldsSchema.extend({
      document: z
        .object({ fileName: z.string(), bytes: z.instanceof(Uint8Array) })
        .nullable()
        .default(null),
    }),
    async run(tx, actor, input, { language }) {
      const t = await getT(language);
      const f = checkFields(t, input);
      if (input.document) checkDocument(t, input.document);
      await refuseDuplicateReference(tx, t, f.reference, null);
      const [row] = await tx.query<Pick<ContractsRow, 'id'>>(
        `insert into contracts (tenant_id, title, reference, starts_on, ends_on, notes, created_by)
         values ($1, $2, $3, $4, $5, $6, $7) returning id`,
        [actor.tenantId, f.title, f.reference, f.startsOn, f.endsOn, f.notes, actor.userId],
      );
      await writeSignatories(tx, actor.tenantId, row.id, f.signatories);
      if (input.document) await storeDocument(tx, actor, dataDir, row.id, input.document);
      const after = await getContract(tx, row.id);
      await audit(tx, actor, 'contract.create', row.id, null, after);
      return after;
    },
  });
}

/** Changes a contract's fields and signatories (admin.contracts.edit). */
export const editContractCommand = defineCommand({
  action: 'contract.edit',
  objectType: 'contract',
  permission: need('admin.contracts.edit'),
  input: contractFieldsSchema.extend({ id: z.string() }),
  async run(tx, actor, input, { language }) {
    const t = await getT(language);
    const before = await getContract(tx, input.id);
    const f = checkFields(t, input);
    await refuseDuplicateReference(tx, t, f.reference, input.id);
    await tx.query(
      `update contracts set title = $2, reference = $3, starts_on = $4, ends_on = $5, notes = $6, updated_at = now()
        where id = $1`,
      [input.id, f.title, f.reference, f.startsOn, f.endsOn, f.notes],
    );
    await writeSignatories(tx, actor.tenantId, input.id, f.signatories);
    const after = await getContract(tx, input.id);
    await audit(tx, actor, 'contract.edit', input.id, before, after);
    return after;
  },
});

/** Moves a contract's status (admin.contracts.update). */
export const setContractStatusCommand = defineCommand({
  action: 'contract.status',
  objectType: 'contract',
  permission: need('admin.contracts.update'),
  input: z.object({ id: z.string(), status: z.string() }),
  async run(tx, actor, input, { language }) {
    const t = await getT(language);
    const before = await getContract(tx, input.id);
    if (!(CONTRACT_STATUSES as readonly string[]).includes(input.status))
      throw new AppError('BAD_REQUEST', t('platform:contracts.errors.status'), { field: 'status' });
    await tx.query('update contracts set status = $2, updated_at = now() where id = $1', [input.id, input.status]);
    const after = await getContract(tx, input.id);
    await audit(tx, actor, 'contract.status', input.id, before, after);
    return after;
  },
});

/** Uploads a new version of a contract's document (admin.contracts.update). */
export function uploadContractDocumentCommand(dataDir: string) {
  return defineCommand({
    action: 'contract.document',
    objectType: 'contract',
    permission: need('admin.contracts.update'),
    input: z.object({
      id: z.string(),
      document: z.object({ fileName: z.string(), bytes: z.instanceof(Uint8Array) }).nullable(),
    }),
    async run(tx, actor, input, { language }) {
      const t = await getT(language);
      const before = await getContract(tx, input.id);
      if (!input.document || input.document.bytes.byteLength === 0)
        throw new AppError('BAD_REQUEST', t('platform:contracts.errors.noDocument'), { field: 'document' });
      checkDocument(t, input.document);
      await storeDocument(tx, actor, dataDir, input.id, input.document);
      const after = await getContract(tx, input.id);
      await audit(tx, actor, 'contract.document', input.id, before, after);
      return after;
    },
  });
}
