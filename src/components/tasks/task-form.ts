/** The form values ↔ command input of the task pages (new and edit). */
import type { FormValues } from '../pages/form-command.ts';
import { assigneeFields } from './task-page.ts';

/** The command input of a posted task form (the assignee picker split into user or team). */
export function taskInput(v: FormValues) {
  return {
    title: v.title ?? '',
    description: v.description ?? '',
    ...assigneeFields(v.assignee),
    dueDate: v.dueDate ?? '',
    priority: v.priority ?? 'normal',
    customerId: v.customerId ?? '',
    loanId: v.loanId ?? '',
    applicationId: v.applicationId ?? '',
    offerId: v.offerId ?? '',
  };
}
