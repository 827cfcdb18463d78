import type { APIRoute } from 'astro';
import { contractJson, editContractCommand, getContract } from '#lib/contracts/contracts.ts';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';

/** GET /v1/contracts/{id} → the contract. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => contractJson(await getContract(tx, context.params.id ?? '')));

/** PATCH /v1/contracts/{id} { title, reference, startsOn, endsOn, notes, signatories } → the contract (admin.contracts.edit). */
export const PATCH: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), editContractCommand, {
    objectId: id,
    input: (body) => ({ ...(body && typeof body === 'object' ? body : {}), id }),
    answer: (contract) => ({ status: 200, body: contractJson(contract) }),
  });
};
