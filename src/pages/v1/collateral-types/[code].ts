import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { updateCollateralTypeCommand } from '#lib/lending/collateral-types.ts';

const bodyObject = (body: unknown) => (body && typeof body === 'object' && !Array.isArray(body) ? body : {});

/** PATCH /v1/collateral-types/{code} { expectedVersion?, active?, nameEn?, … } (admins) → the type; stale version 409. */
export const PATCH: APIRoute = (context) => {
  const code = context.params.code ?? '';
  return commandEndpoint(apiContext(context), updateCollateralTypeCommand, {
    objectId: code,
    input: (body) => ({ ...bodyObject(body), code }),
    answer: (type) => ({ status: 200, body: type }),
  });
};
