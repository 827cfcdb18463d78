import type { APIRoute } from 'astro';
import { env } from '#lib/config/env.ts';
import { contractJson, createContractCommand, listContracts } from '#lib/contracts/contracts.ts';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';

/** GET /v1/contracts → { items: [contract] }. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => ({ items: (await listContracts(tx)).map(contractJson) }));

/**
 * POST /v1/contracts { title, reference, startsOn, endsOn, notes, signatories: [{ name, title, signedOn }] }
 * → 201 the contract, in draft (admin.contracts.edit). The document is uploaded with PUT …/document.
 */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), createContractCommand(env().dataDir), {
    input: (body) => ({ ...(body && typeof body === 'object' ? body : {}), document: null }),
    answer: (contract) => ({ status: 201, body: contractJson(contract) }),
  });
