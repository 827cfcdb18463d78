import { describe, expect, test } from 'vitest';
import { postedTermsValues, termsFormValues, termsFromForm } from '../../src/components/strategies/terms-form.ts';
import { strategyTermsSchema } from '#lib/strategies/terms.ts';

const MODEL = '11111111-1111-4111-8111-111111111111';
const VERSION = '22222222-2222-4222-8222-222222222222';
const PRODUCT = '33333333-3333-4333-8333-333333333333';

describe('the strategy terms form', () => {
  test('reads typed decimals, drops rows without a class, keeps the rate empty as the model’s', () => {
    const values = {
      modelVersion: `${MODEL}:${VERSION}`,
      productId: PRODUCT,
      offerValidityDays: '30',
      segments: ' retail , , salaried ',
      class_0_riskClass: 'A',
      class_0_maxPrincipal: '1 200,50',
      class_0_term: '12',
      class_0_rate: '',
      class_1_riskClass: '',
      class_1_maxPrincipal: '999',
      class_2_riskClass: 'C',
      class_2_maxPrincipal: '500',
      class_2_term: '6',
      class_2_rate: '18,5',
      class_2_excluded: 'on',
    };
    const terms = strategyTermsSchema.parse(termsFromForm(values, 3, null));
    expect(terms).toMatchObject({
      modelId: MODEL,
      modelVersionId: VERSION,
      productId: PRODUCT,
      offerValidityDays: 30,
      segments: ['retail', 'salaried'],
      classes: [
        { riskClass: 'A', maxPrincipal: '1200.50', numberOfRepayments: 12, annualInterestRate: null, excluded: false },
        { riskClass: 'C', maxPrincipal: '500', numberOfRepayments: 6, annualInterestRate: '18.5', excluded: true },
      ],
    });
    // Shown again after a refusal: the two rows kept and two blank ones to add more.
    expect(postedTermsValues(values, 3).rows.map((r) => r.riskClass)).toEqual(['A', 'C', '', '']);
    // And the stored terms fill the editor the same way.
    expect(
      termsFormValues(terms)
        .rows.slice(0, 2)
        .map((r) => [r.riskClass, r.rate]),
    ).toEqual([
      ['A', ''],
      ['C', '18.5'],
    ]);
  });

  test('a form without a model or classes is refused by the schema', () => {
    expect(strategyTermsSchema.safeParse(termsFromForm({ offerValidityDays: 'x' }, 0, null)).success).toBe(false);
  });
});
