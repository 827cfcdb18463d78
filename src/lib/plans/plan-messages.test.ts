import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.ts';
import { getT } from '../i18n/index.ts';
import { localizePlanError, planRefusalText } from './plan-messages.ts';

describe('plan refusals, in both languages', () => {
  it('names the feature and the plan when the plan lacks a feature', async () => {
    const details = { reason: 'not_in_plan', feature: 'decision_engine', plan: 'Starter' };
    expect(planRefusalText(await getT('en'), details)).toBe(
      '“Decision engine” is not part of your Starter plan. Ask your administrator about a plan that includes it.',
    );
    expect(planRefusalText(await getT('fr'), details)).toBe(
      '« Moteur de décision » ne fait pas partie de votre offre Starter. Demandez à votre administrateur une offre qui l’inclut.',
    );
  });

  it('names the limit, the usage and the plan when a limit is reached', async () => {
    const error = new AppError('LIMIT_REACHED', 'x', {
      details: { reason: 'limit_reached', feature: 'api_tokens', plan: 'Starter', usage: 2, usage_limit: 2 },
    });
    const en = localizePlanError(await getT('en'), error) as AppError;
    expect(en.status).toBe(402);
    expect(en.message).toMatch(/^Your Starter plan allows 2 API tokens, and 2 are in use\./);
    expect((localizePlanError(await getT('fr'), error) as AppError).message).toMatch(
      /^Votre offre Starter permet 2 jetons d’API, et 2 sont déjà utilisés\./,
    );
  });

  it('leaves other errors alone', async () => {
    const other = new AppError('BAD_REQUEST', 'nope');
    expect(localizePlanError(await getT('en'), other)).toBe(other);
    expect(planRefusalText(await getT('en'), { reason: 'too_short' })).toBeNull();
  });
});
