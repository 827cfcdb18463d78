import { z } from 'zod';
import type { Db, Tx } from '../db/index.ts';
import { defineCommand } from '../http/command.ts';
import { tenantMoneyDay } from '../tenancy/tenant.ts';
import { AppError, pgCode } from '../errors/app-error.ts';
import type { Actor } from '../lending/actor.ts';
import { createCustomer, setCustomerOptIn, type CustomerRow } from '../lending/customers.ts';
import { findDuplicateCustomers, type DuplicateMatch } from './duplicates.ts';
import { need } from '../auth/permissions.ts';
import { checkCustomValues, customFieldsOf, CUSTOM_FIELD_PREFIX, coerceCustomPosted } from '../forms/custom-fields.ts';

/** The add-customer form (/loans/customers/add), as posted. */
export type NewCustomerForm = {
  firstName: string;
  lastName: string;
  nationalId: string;
  phone: string;
  email: string;
  dateOfBirth: string;
  segment: string;
  isOptedOut: boolean;
  optOutReason: string;
  /** The user saw the possible duplicates and says this is another person (phone matches only). */
  isDuplicateConfirmed: boolean;
  /** The customized fields as posted (`cf.<name>` inputs, without the prefix). */
  customFields?: Record<string, string>;
};

export type AddCustomerResult =
  { kind: 'created'; customer: CustomerRow } | { kind: 'duplicates'; matches: DuplicateMatch[] };

function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

/** Field checks, each naming its field; returns the first problem found. */
export function validateNewCustomer(form: NewCustomerForm, businessDate: string): void {
  const bad = (field: string, message: string) => new AppError('BAD_REQUEST', message, { field });
  if (!form.firstName.trim()) throw bad('firstName', 'First name is required');
  if (!form.lastName.trim()) throw bad('lastName', 'Last name is required');
  if (form.firstName.length > 200) throw bad('firstName', 'First name is too long (200 characters at most)');
  if (form.lastName.length > 200) throw bad('lastName', 'Last name is too long (200 characters at most)');
  if (!form.phone.trim() && !form.nationalId.trim()) throw bad('phone', 'Give a phone number or a national ID');
  if (form.phone.trim() && !/^\+?[0-9 ().-]{6,25}$/.test(form.phone.trim()))
    throw bad('phone', 'Phone must contain digits only, with an optional leading +');
  if (form.nationalId.trim() && !/^[A-Za-z0-9 -]{3,50}$/.test(form.nationalId.trim()))
    throw bad('nationalId', 'National ID must be 3 to 50 letters or digits');
  if (form.email.trim() && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(form.email.trim()))
    throw bad('email', 'Email is not a valid address');
  if (form.dateOfBirth.trim()) {
    if (!isCalendarDate(form.dateOfBirth.trim())) throw bad('dateOfBirth', 'Date of birth must be a date YYYY-MM-DD');
    if (form.dateOfBirth.trim() >= businessDate) throw bad('dateOfBirth', 'Date of birth must be in the past');
  }
  if (form.isOptedOut && !form.optOutReason.trim()) throw bad('optOutReason', 'Give the reason for opting out');
}

/**
 * Adds a customer after the duplicate check: a national ID already used is refused (409, naming
 * nationalId); a matching phone returns the matches unless the user confirmed it is another person.
 * Opting out at creation records the reason in the opt-in history. All in one transaction, audited.
 */
export async function addCustomer(db: Db, actor: Actor, form: NewCustomerForm): Promise<AddCustomerResult> {
  return db.tenant(actor.tenantId, (tx) => addCustomerIn(tx, actor, form));
}

async function addCustomerIn(tx: Tx, actor: Actor, form: NewCustomerForm): Promise<AddCustomerResult> {
  {
    const { businessDate } = await tenantMoneyDay(tx, actor.tenantId);
    validateNewCustomer(form, businessDate);
    const doc = await customFieldsOf(tx, 'customer');
    const customFields = checkCustomValues(doc, doc ? coerceCustomPosted(doc, form.customFields ?? {}) : {}, null);
    const matches = await findDuplicateCustomers(tx, { phone: form.phone, nationalId: form.nationalId });
    if (matches.some((m) => m.field === 'nationalId')) {
      throw new AppError('ALREADY_EXISTS', 'A customer with this national ID already exists', {
        field: 'nationalId',
        details: { matches },
      });
    }
    if (matches.length && !form.isDuplicateConfirmed) return { kind: 'duplicates', matches };
    const text = (v: string) => v.trim() || null;
    let customer: CustomerRow;
    try {
      customer = await createCustomer(tx, actor, {
        firstName: form.firstName.trim(),
        lastName: form.lastName.trim(),
        nationalId: text(form.nationalId),
        phone: text(form.phone),
        email: text(form.email),
        dateOfBirth: text(form.dateOfBirth),
        segment: text(form.segment),
        customFields,
      });
    } catch (error) {
      if (pgCode(error) === '23505')
        throw new AppError('ALREADY_EXISTS', 'A customer with this national ID already exists', {
          field: 'nationalId',
        });
      throw error;
    }
    if (form.isOptedOut)
      customer = await setCustomerOptIn(tx, actor, customer.id, 'opted_out', form.optOutReason.trim());
    return { kind: 'created', customer };
  }
}

const formText = z.string().max(10_000);
const newCustomerFormSchema = z.object({
  firstName: formText,
  lastName: formText,
  nationalId: formText,
  phone: formText,
  email: formText,
  dateOfBirth: formText,
  segment: formText,
  isOptedOut: z.boolean(),
  optOutReason: formText,
  isDuplicateConfirmed: z.boolean(),
  customFields: z.record(z.string().max(80), formText).default({}),
});

/**
 * Adding a customer as a command (src/lib/http/command.ts): the add-customer page posts its form
 * through the form adapter. Possible duplicates are an answer, not a refusal: the page shows them.
 */
export const addCustomerCommand = defineCommand({
  action: 'customer.create',
  objectType: 'customer',
  permission: need('loans.customers.view'),
  input: newCustomerFormSchema,
  run: (tx, actor, form) => addCustomerIn(tx, actor, form),
});

export function formFromData(data: FormData): NewCustomerForm {
  const s = (name: string) => String(data.get(name) ?? '');
  return {
    firstName: s('firstName'),
    lastName: s('lastName'),
    nationalId: s('nationalId'),
    phone: s('phone'),
    email: s('email'),
    dateOfBirth: s('dateOfBirth'),
    segment: s('segment'),
    isOptedOut: data.get('optOut') === 'on',
    optOutReason: s('optOutReason'),
    isDuplicateConfirmed: data.get('confirmDuplicate') === 'on',
    customFields: Object.fromEntries(
      [...data.entries()]
        .filter(([key, value]) => key.startsWith(CUSTOM_FIELD_PREFIX) && typeof value === 'string')
        .map(([key, value]) => [key.slice(CUSTOM_FIELD_PREFIX.length), String(value)]),
    ),
  };
}
