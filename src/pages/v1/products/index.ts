import type { APIRoute } from 'astro';
import { z } from 'zod';
import { amountField, apiContext, mutation, query } from '#lib/lending/api.ts';
import { assertProductDigits, createProduct, listProducts, productJson } from '#lib/lending/products.ts';
import { parseMinor } from '#lib/money/money.ts';
import { auditSuccess } from '#lib/lending/commands/common.ts';

/** GET /v1/products → { items }. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => ({ items: (await listProducts(tx)).map(productJson) }));

const Body = z.object({
  code: z.string().min(1).max(40),
  name: z.string().min(1).max(200),
  description: z.string().max(2000).optional(),
  currency: z.string().regex(/^[A-Za-z]{3}$/, 'must be a 3-letter currency code'),
  digitsAfterDecimal: z.number().int().min(0).max(6),
  currencyInMultiplesOf: z.number().int().min(0).optional(),
  installmentAmountInMultiplesOf: z.number().int().min(0).optional(),
  roundingMode: z.enum(['HALF_EVEN', 'HALF_UP', 'HALF_DOWN', 'UP', 'DOWN', 'CEILING', 'FLOOR']).optional(),
  minPrincipal: amountField,
  maxPrincipal: amountField,
  minRepayments: z.number().int().positive(),
  maxRepayments: z.number().int().positive(),
  annualInterestRate: z.string().regex(/^\d{1,3}(\.\d{1,6})?$/, 'must be a percentage such as "12.5"'),
  repaymentEvery: z.number().int().positive().optional(),
  repaymentFrequency: z.enum(['DAYS', 'WEEKS', 'MONTHS']),
  scheduleType: z.enum(['CUMULATIVE', 'PROGRESSIVE']).optional(),
  interestMethod: z.enum(['DECLINING_BALANCE', 'FLAT']).optional(),
  amortization: z.enum(['EQUAL_INSTALLMENTS', 'EQUAL_PRINCIPAL']).optional(),
  interestCalculationPeriod: z.enum(['DAILY', 'SAME_AS_REPAYMENT_PERIOD']).optional(),
  allowPartialPeriodInterest: z.boolean().optional(),
  daysInYear: z.enum(['ACTUAL', '360', '364', '365']).optional(),
  daysInMonth: z.enum(['ACTUAL', '30']).optional(),
  graceOnPrincipalPeriods: z.number().int().min(0).optional(),
  graceOnInterestPaymentPeriods: z.number().int().min(0).optional(),
  interestFreePeriods: z.number().int().min(0).optional(),
  graceOnArrearsAgeing: z.number().int().min(0).optional(),
  downPaymentPercent: z.string().optional(),
  fees: z.array(z.unknown()).optional(),
  penalties: z.array(z.unknown()).optional(),
  allocationStrategy: z.string().optional(),
  delinquencyBucketSetId: z.string().uuid().optional(),
  allowOverpayment: z.boolean().optional(),
});

/** POST /v1/products (admins) → 201 the product. */
export const POST: APIRoute = (context) =>
  mutation(apiContext(context), {
    action: 'product.create',
    objectType: 'loan_product',
    objectId: '',
    schema: Body,
    run: async (tx, actor, body) => {
      assertProductDigits(body.currency, body.digitsAfterDecimal);
      const d = body.digitsAfterDecimal;
      const product = await createProduct(tx, actor.tenantId, {
        ...body,
        minPrincipal: parseMinor(body.minPrincipal, d, 'minPrincipal', {}),
        maxPrincipal: parseMinor(body.maxPrincipal, d, 'maxPrincipal', {}),
        allocationStrategy: body.allocationStrategy as never,
      });
      await auditSuccess(tx, actor, 'product.create', 'loan_product', product.id, null, productJson(product));
      return { status: 201, body: productJson(product) };
    },
  });
