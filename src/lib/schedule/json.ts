import { formatMinor } from '../money/money.ts';
import type { Schedule, ScheduleJson } from './types.ts';

/** The contract JSON: amounts as decimal strings with the currency's digits. */
export function scheduleToJson(schedule: Schedule): ScheduleJson {
  const f = (minor: bigint) => formatMinor(minor, schedule.digits);
  return {
    currency: schedule.currency,
    installments: schedule.installments.map((i) => ({
      number: i.number,
      fromDate: i.fromDate,
      dueDate: i.dueDate,
      principal: f(i.principal),
      interest: f(i.interest),
      fees: f(i.fees),
      penalties: f(i.penalties),
      total: f(i.total),
      balance: f(i.balance),
      downPayment: i.isDownPayment,
      ...(i.isAdditional ? { additional: true as const } : {}),
    })),
    totals: {
      principal: f(schedule.totals.principal),
      interest: f(schedule.totals.interest),
      fees: f(schedule.totals.fees),
      penalties: f(schedule.totals.penalties),
      total: f(schedule.totals.total),
    },
    ...(schedule.disbursement
      ? {
          disbursement: {
            date: schedule.disbursement.date,
            fees: f(schedule.disbursement.fees),
            penalties: f(schedule.disbursement.penalties),
            total: f(schedule.disbursement.total),
          },
        }
      : {}),
    ...(schedule.disbursements
      ? { disbursements: schedule.disbursements.map((d) => ({ date: d.date, amount: f(d.amount) })) }
      : {}),
  };
}
