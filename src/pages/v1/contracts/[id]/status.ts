import type { APIRoute } from 'astro';
import { contractJson, setContractStatusCommand } from '#lib/contracts/contracts.ts';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';

/** POST /v1/contracts/{id}/status { status: "active" } → the contract (admin.contracts.update). */
export const POST: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), setContractStatusCommand, {
    objectId: id,
    input: (body) => ({ ...(body && typeof body === 'object' ? body : {}), id }),
    answer: (contract) => ({ status: 200, body: contractJson(contract) }),
  });
};
