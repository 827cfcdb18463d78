import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { createCollateralTypeCommand, listCollateralTypes } from '#lib/lending/collateral-types.ts';

/** GET /v1/collateral-types → { items } (every type, active first). */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => ({ items: await listCollateralTypes(tx) }));

/** POST /v1/collateral-types { code, nameEn, nameFr, maxLtvPercent, haircutPercent, revaluationMonths } (admins) → 201 the type. */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), createCollateralTypeCommand, {
    answer: (type) => ({ status: 201, body: type }),
  });
