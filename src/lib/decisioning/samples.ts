import type { JdmContent } from './zen.ts';

/**
 * The demo credit policy as a JDM document: a first-hit decision table over the bureau score, the
 * debt-service ratio and the worst days past due, giving the verdict, the limit and the annual rate.
 * Seeds, tests and the editor's "new model" template start from it.
 */
export function demoPolicyModel(): JdmContent {
  return {
    nodes: [
      { id: 'request', type: 'inputNode', name: 'Request', position: { x: 80, y: 200 } },
      {
        id: 'policy',
        type: 'decisionTableNode',
        name: 'Credit policy',
        position: { x: 340, y: 200 },
        content: {
          hitPolicy: 'first',
          inputs: [
            { id: 'dpd', name: 'Worst days past due', field: 'exposure.maxDaysPastDue' },
            { id: 'wo', name: 'Loans written off', field: 'exposure.writtenOffLoans' },
            { id: 'dsr', name: 'Debt-service ratio', field: 'exposure.debtServiceRatio' },
            { id: 'inflow', name: 'Average monthly inflow', field: 'bankStatement.averageInflow' },
          ],
          outputs: [
            { id: 'decision', name: 'Decision', field: 'decision' },
            { id: 'limit', name: 'Limit', field: 'limit' },
            { id: 'rate', name: 'Annual rate', field: 'rate' },
          ],
          rules: [
            {
              _id: 'late',
              _description: 'Currently more than 30 days late',
              dpd: '> 30',
              wo: '',
              dsr: '',
              inflow: '',
              decision: '"reject"',
              limit: '0',
              rate: '0',
            },
            {
              _id: 'writeoff',
              _description: 'A loan was written off',
              dpd: '',
              wo: '> 0',
              dsr: '',
              inflow: '',
              decision: '"reject"',
              limit: '0',
              rate: '0',
            },
            {
              _id: 'stretched',
              _description: 'Debts take more than 40% of income',
              dpd: '',
              wo: '',
              dsr: '> 0.4',
              inflow: '',
              decision: '"refer"',
              limit: '0',
              rate: '0',
            },
            {
              _id: 'no-income',
              _description: 'No regular income seen',
              dpd: '',
              wo: '',
              dsr: '',
              inflow: '< 800',
              decision: '"reject"',
              limit: '0',
              rate: '0',
            },
            {
              _id: 'strong',
              _description: 'Strong income, low debt',
              dpd: '',
              wo: '',
              dsr: '< 0.2',
              inflow: '>= 3000',
              decision: '"approve"',
              limit: 'min([bankStatement.averageInflow * 3, 15000])',
              rate: '9.5',
            },
            {
              _id: 'standard',
              _description: 'Standard profile',
              dpd: '',
              wo: '',
              dsr: '',
              inflow: '',
              decision: '"approve"',
              limit: 'min([bankStatement.averageInflow * 1.5, 8000])',
              rate: '12.5',
            },
          ],
        },
      },
      { id: 'response', type: 'outputNode', name: 'Response', position: { x: 640, y: 200 } },
    ],
    edges: [
      { id: 'e1', sourceId: 'request', targetId: 'policy', type: 'edge' },
      { id: 'e2', sourceId: 'policy', targetId: 'response', type: 'edge' },
    ],
  };
}

/** Test cases saved with the demo policy. */
export function demoPolicyTestCases() {
  const base = {
    exposure: { maxDaysPastDue: 0, writtenOffLoans: 0, debtServiceRatio: 0.1 },
    bankStatement: { averageInflow: 4000 },
  };
  return [
    {
      name: 'Strong profile gets 3 months of income',
      input: base,
      expected: { decision: 'approve', limit: 12000, rate: 9.5 },
    },
    {
      name: 'Late borrower is refused',
      input: { ...base, exposure: { ...base.exposure, maxDaysPastDue: 45 } },
      expected: { decision: 'reject' },
    },
    {
      name: 'High debt service is referred',
      input: { ...base, exposure: { ...base.exposure, debtServiceRatio: 0.55 } },
      expected: { decision: 'refer' },
    },
    {
      name: 'Modest income gets a smaller limit',
      input: { ...base, bankStatement: { averageInflow: 2000 } },
      expected: { decision: 'approve', limit: 3000, rate: 12.5 },
    },
  ];
}
