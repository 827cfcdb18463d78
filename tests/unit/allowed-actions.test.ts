import { describe, expect, it } from 'vitest';
import { allowedActions, mayOpen } from '#lib/auth/allowed-actions.ts';
import { DEMO_ROLES } from '#lib/auth/permissions.ts';
import { findList } from '#lib/lists/registry.ts';

const officer = { isAdmin: false, authorities: DEMO_ROLES.loan_officer.authorities };
const analyst = { isAdmin: false, authorities: DEMO_ROLES.analyst.authorities };
const admin = { isAdmin: true, authorities: [] };
const everything = [
  'disburse',
  'repay',
  'writeOff',
  'applyCharge',
  'waiveInterest',
  'waiveCharges',
  'reverseTransaction',
  'reAge',
  'reAmortize',
  'reschedule',
].map((action) => ({ action, allowed: true }));

describe('allowedActions: the route rule AND the lifecycle', () => {
  it('shows a loan action only when both the API route and the dry run allow it', () => {
    expect(allowedActions(officer, 'loan', { dryRun: everything })).toEqual({
      disburse: true,
      repay: true,
      writeOff: false,
      // Charging and waiving are the administrator's (the same rule as a write-off).
      applyCharge: false,
      waiveInterest: false,
      waiveCharges: false,
      reverseTransaction: false,
      reAge: false,
      reAmortize: false,
      undoReAge: false,
      undoReAmortize: false,
      // The officer submits reschedule requests; deciding them is for another role (maker-checker).
      reschedule: true,
      approveReschedule: false,
      rejectReschedule: false,
      tranches: true,
    });
    expect(allowedActions(admin, 'loan', { dryRun: everything })).toEqual({
      disburse: true,
      repay: true,
      writeOff: true,
      applyCharge: true,
      waiveInterest: true,
      waiveCharges: true,
      reverseTransaction: true,
      reAge: true,
      reAmortize: true,
      undoReAge: true,
      undoReAmortize: true,
      reschedule: true,
      approveReschedule: true,
      rejectReschedule: true,
      tranches: true,
    });
    // The lifecycle says no: hidden even from an administrator; an action the dry run omits is not allowed.
    expect(allowedActions(admin, 'loan', { dryRun: [{ action: 'repay', allowed: false }] })).toEqual({
      disburse: false,
      repay: false,
      writeOff: false,
      applyCharge: false,
      waiveInterest: false,
      waiveCharges: false,
      reverseTransaction: false,
      reAge: false,
      reAmortize: false,
      // The undo actions have no lifecycle entry: their availability is the loan page's (a live re-age).
      undoReAge: true,
      undoReAmortize: true,
      reschedule: false,
      approveReschedule: true,
      rejectReschedule: true,
      // Tranches have no lifecycle gate here: the command refuses a loan in the wrong state.
      tranches: true,
    });
    expect(allowedActions(analyst, 'loan', { dryRun: everything })).toEqual({
      disburse: false,
      repay: false,
      writeOff: false,
      applyCharge: false,
      waiveInterest: false,
      waiveCharges: false,
      reverseTransaction: false,
      reAge: false,
      reAmortize: false,
      undoReAge: false,
      undoReAmortize: false,
      reschedule: false,
      approveReschedule: false,
      rejectReschedule: false,
      tranches: false,
    });
  });

  it('offer actions without a lifecycle (simulate, copy, print) follow the permission alone', () => {
    const offer = allowedActions(officer, 'offer', {
      dryRun: [
        { action: 'notify', allowed: true },
        { action: 'reject', allowed: false },
      ],
    });
    expect(offer).toEqual({ notify: true, reject: false, request: false, simulate: true, copyCode: true, print: true });
    expect(allowedActions(null, 'offer')).toEqual({
      notify: false,
      reject: false,
      request: false,
      simulate: false,
      copyCode: false,
      print: false,
    });
  });

  it('customer actions follow the same rules as their API routes and pages', () => {
    const { collector } = DEMO_ROLES;
    expect(allowedActions({ isAdmin: false, authorities: collector.authorities }, 'customer')).toMatchObject({
      uploadFile: false,
      downloadFile: false,
      optIn: false,
      seeCreditAnalysis: false,
    });
    // Importing a statement needs both keys (an implied key of the permission module).
    expect(
      allowedActions({ isAdmin: false, authorities: ['customer.files.upload'] }, 'customer').importBankStatement,
    ).toBe(false);
    expect(
      allowedActions(
        { isAdmin: false, authorities: ['customer.files.upload', 'customer.bank_statements.view'] },
        'customer',
      ).importBankStatement,
    ).toBe(true);
  });

  it('a list opens, exports and edits its views as its page and the custom-views API allow', () => {
    const loans = findList('loans')!;
    const applications = findList('applications')!;
    expect(allowedActions(officer, 'list', loans)).toEqual({ open: true, export: true, editViews: true });
    expect(allowedActions(analyst, 'list', loans)).toEqual({ open: true, export: true, editViews: false });
    expect(allowedActions(analyst, 'list', findList('offers')!)).toEqual({
      open: false,
      export: false,
      editViews: false,
    });
    // A list without custom views never offers to edit them.
    expect(allowedActions(admin, 'list', applications)).toEqual({ open: true, export: true, editViews: false });
  });

  it('mayOpen reads the page rule; unknown paths are closed', () => {
    expect(mayOpen(officer, '/loans/customers')).toBe(true);
    expect(mayOpen(officer, '/admin/platform/error-reports')).toBe(false);
    expect(mayOpen(admin, '/admin/platform/error-reports')).toBe(true);
    expect(mayOpen(admin, '/nowhere')).toBe(false);
  });
});
