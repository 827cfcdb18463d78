import type { APIRoute } from 'astro';
import { AppError } from '#lib/errors/app-error.ts';
import { apiContext, query } from '#lib/lending/api.ts';
import {
  changeJson,
  findSimulation,
  getStrategy,
  simulationChanges,
  simulationChangesOutsideScope,
  simulationJson,
} from '#lib/strategies/strategies.ts';

const PAGE = 50;

/**
 * GET /v1/strategies/{id}/simulations/{simulationId}?after={customerId}&limit=50 → the simulation
 * (status, progress, results) and a page of the customers whose outcome changes, only those in the
 * caller's data-permission scope: { simulation, changes, next, outsideScope } (outsideScope: how many are not listed).
 */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, actor, url) => {
    const strategy = await getStrategy(tx, context.params.id ?? '');
    const simulation = await findSimulation(tx, strategy.id, context.params.simulationId ?? '');
    if (!simulation) throw new AppError('NOT_FOUND', 'Simulation not found');
    const limit = Math.min(Math.max(Number(url.searchParams.get('limit')) || PAGE, 1), 500);
    const rows = await simulationChanges(tx, simulation.id, actor, {
      afterId: url.searchParams.get('after'),
      limit: limit + 1,
    });
    const digits = simulation.results?.digits ?? 2;
    return {
      simulation: simulationJson(simulation),
      changes: rows.slice(0, limit).map((c) => changeJson(c, digits)),
      next: rows.length > limit ? rows[limit - 1].customer_id : null,
      outsideScope: await simulationChangesOutsideScope(tx, simulation.id, actor),
    };
  });
