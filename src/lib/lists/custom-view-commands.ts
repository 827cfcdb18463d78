import { z } from 'zod';
import { AppError } from '../errors/app-error.ts';
import { defineCommand } from '../http/command.ts';
import { createCustomView, customViewInputSchema, deleteCustomView, updateCustomView } from './custom-views.ts';
import { findList } from './registry.ts';
import { need } from '../auth/permissions.ts';

/**
 * Saving and deleting a custom view as commands (src/lib/http/command.ts): the custom-view pages post
 * their forms through the form adapter. The list must be one with custom views; only the owner
 * changes or deletes a view (checked by updateCustomView / deleteCustomView).
 */
function listWithViews(name: string) {
  const entry = findList(name);
  if (!entry || !entry.hasCustomViews) throw new AppError('NOT_FOUND', 'This list has no custom views.');
  return entry;
}

/** Creates a view (no viewId) or changes the caller's own view. */
export const saveCustomViewCommand = defineCommand({
  action: 'custom_view.save',
  objectType: 'custom_view',
  permission: need('loans.custom_views.edit'),
  input: customViewInputSchema.extend({ list: z.string(), viewId: z.string().nullable() }),
  run: (tx, actor, { list, viewId, ...view }) => {
    const entry = listWithViews(list);
    return viewId ? updateCustomView(tx, actor, entry.def, viewId, view) : createCustomView(tx, actor, entry.def, view);
  },
});

/** Deletes the caller's own view. */
export const deleteCustomViewCommand = defineCommand({
  action: 'custom_view.delete',
  objectType: 'custom_view',
  permission: need('loans.custom_views.edit'),
  input: z.object({ list: z.string(), viewId: z.string() }),
  run: async (tx, actor, { list, viewId }) => {
    listWithViews(list);
    await deleteCustomView(tx, actor, list, viewId);
    return { id: viewId };
  },
});
