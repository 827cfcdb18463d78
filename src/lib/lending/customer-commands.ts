import { z } from 'zod';
import { defineCommand } from '../http/command.ts';
import { setCustomerOptIn } from './customers.ts';
import { need } from '../auth/permissions.ts';

/**
 * Opting a customer in or out of offers as commands (src/lib/http/command.ts): POST
 * /v1/customers/{id}/opt-in|opt-out and the profile's resume form run the same one. Each direction
 * has its own permission; the change and its reason go to the opt-in history.
 */
const input = z.object({ customerId: z.string(), reason: z.string().min(1).max(1000) });

export const optInCustomerCommand = defineCommand({
  action: 'customer.opt_in',
  objectType: 'customer',
  permission: need('loans.customers.opt_in'),
  input,
  run: (tx, actor, { customerId, reason }) => setCustomerOptIn(tx, actor, customerId, 'opted_in', reason),
});

export const optOutCustomerCommand = defineCommand({
  action: 'customer.opt_out',
  objectType: 'customer',
  permission: need('loans.customers.opt_out'),
  input,
  run: (tx, actor, { customerId, reason }) => setCustomerOptIn(tx, actor, customerId, 'opted_out', reason),
});
