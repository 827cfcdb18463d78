import { z } from 'zod';
import { env } from '../config/env.ts';
import { defineCommand } from '../http/command.ts';
import { attachmentStore, checkUploads } from './attachments.ts';
import {
  CONVERSATIONS_RULE,
  newConversationInput,
  postMessageInput,
  postMessage,
  startConversation,
  type FileUpload,
} from './threads.ts';

/** The writes of conversations, run by the /v1 endpoints and the pages' forms alike. */
const withFiles = <T extends z.ZodTypeAny>(schema: T) =>
  z.object({ fields: schema, files: z.array(z.custom<FileUpload>()).default([]) });

export const startConversationCommand = defineCommand({
  action: 'conversation.create',
  objectType: 'conversation',
  permission: CONVERSATIONS_RULE,
  input: withFiles(newConversationInput),
  run: (tx, actor, input) =>
    startConversation(tx, actor, input.fields, checkUploads(input.files), attachmentStore(env().dataDir)),
});

export const postMessageCommand = defineCommand({
  action: 'conversation.message',
  objectType: 'conversation',
  permission: CONVERSATIONS_RULE,
  input: withFiles(postMessageInput),
  run: (tx, actor, input) =>
    postMessage(tx, actor, input.fields, checkUploads(input.files), attachmentStore(env().dataDir)),
});

/** A posted form (fields plus `file` parts, repeated `mentions`) as `{ fields, files }`. */
export async function messageInputFromForm(form: FormData, extra: Record<string, unknown> = {}) {
  const fields: Record<string, unknown> = {};
  const files: FileUpload[] = [];
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') {
      if (name === 'mentions') fields.mentions = [...((fields.mentions as string[]) ?? []), value];
      else if (!name.startsWith('_')) fields[name] = value;
    } else if (name === 'file' && value.size > 0) {
      files.push({ fileName: value.name, contentType: value.type, bytes: Buffer.from(await value.arrayBuffer()) });
    }
  }
  return { fields: { ...fields, ...extra }, files };
}

/** Reads a JSON body or a multipart form (fields plus `file` parts) into `{ fields, files }`. */
export async function readMessageRequest(request: Request, extra: Record<string, unknown> = {}) {
  const type = request.headers.get('content-type') ?? '';
  if (type.startsWith('multipart/form-data')) return messageInputFromForm(await request.formData(), extra);
  const body = (await request.json().catch(() => ({}))) as Record<string, unknown>;
  return { fields: { ...body, ...extra }, files: [] };
}
