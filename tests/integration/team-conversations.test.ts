import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db, Tx } from '#lib/db/index.ts';
import { AppError } from '#lib/errors/app-error.ts';
import type { Actor } from '#lib/lending/actor.ts';
import { createCustomer, setCustomerOptIn } from '#lib/lending/customers.ts';
import { queueTemplateMessage } from '#lib/conversations/queue.ts';
import {
  listMessages,
  listThreads,
  markRead,
  postMessage,
  startConversation,
  unreadThreadCount,
  getThread,
  dueTaskCount,
} from '#lib/conversations/threads.ts';
import { deliverMessage, type DeliverConfig } from '#lib/conversations/deliver.ts';
import { inboundBody, receiveInbound, signWebhook, verifyWebhook } from '#lib/conversations/inbound.ts';
import { attachmentStore, checkUploads } from '#lib/conversations/attachments.ts';
import { getJob } from '#lib/jobs/queue.ts';
import { startWorker, type JobHandler } from '#lib/jobs/worker.ts';
import { DELIVER_JOB } from '#lib/conversations/deliver.ts';
import { seedDemoTemplates } from '#lib/seed/demo-templates.ts';
import { createTask } from '#lib/tasks/create.ts';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';

// Conversations with customers (issue 14): the opt-out rule, delivery by e-mail (a real local SMTP
// server) and SMS (a local HTTP stand-in of the documented provider contract), retries and
// idempotence, the signed inbound webhook and how a reply finds its thread, @mentions, unread
// counts and the branch scope.

const SECRET = `whsec_${Buffer.from('integration-secret-for-inbound-hooks').toString('base64')}`;

async function refusalOf(run: Promise<unknown>): Promise<AppError> {
  try {
    await run;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe.each(testDbKinds())('conversations on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  let officerA: Actor;
  let officerB: Actor;
  let colleague: Actor;
  let smtp: SmtpSink;
  let sms: http.Server;
  let smsUrl = '';
  const smsRequests: { auth: string | undefined; body: { to: string; body: string; reference: string } }[] = [];
  let smsAnswer = { status: 200, body: '{"id":"sms-1"}' };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'convo-'));
  const ids = { branchA: '', branchB: '', customerA: '', optedOut: '', customerB: '', loanOptedOut: '' };
  const t = <T>(fn: (tx: Tx) => Promise<T>) => db.tenant(f.tenantId, fn);
  const config = (): DeliverConfig => ({
    dataDir,
    smtpUrl: smtp.url,
    smsProviderUrl: smsUrl,
    smsProviderToken: 'sms-token',
    replyDomain: 'mail.test',
  });

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, { businessDate: '2026-01-15' });
    smtp = await startSmtpSink();
    sms = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        smsRequests.push({ auth: req.headers.authorization, body: JSON.parse(raw) });
        res.writeHead(smsAnswer.status, { 'content-type': 'application/json' }).end(smsAnswer.body);
      });
    });
    await new Promise<void>((resolve) => sms.listen(0, '127.0.0.1', resolve));
    smsUrl = `http://127.0.0.1:${(sms.address() as { port: number }).port}/messages`;
    await t(async (tx) => {
      const node = async (code: string) =>
        (
          await tx.query<{ id: string }>(
            `insert into hierarchy_nodes (tenant_id, level, code, name) values ($1, 'branch', $2, $2) returning id`,
            [f.tenantId, code],
          )
        )[0].id;
      ids.branchA = await node('BR-A');
      ids.branchB = await node('BR-B');
      const user = async (name: string) =>
        (
          await tx.query<{ id: string }>(
            `insert into users (tenant_id, email, display_name) values ($1, $2, $3) returning id`,
            [f.tenantId, `${name}@t.test`, name],
          )
        )[0].id;
      const scoped = (userId: string, branch: string): Actor => ({
        tenantId: f.tenantId,
        userId,
        isAdmin: false,
        dataPermissions: [{ field: 'branch', value: branch }],
      });
      // The users' data permissions are stored too (mentions check the mentioned user's own scope).
      const limit = async (actor: Actor) => {
        for (const p of actor.dataPermissions ?? [])
          await tx.query(
            `insert into user_data_permissions (tenant_id, user_id, field, value) values ($1, $2, $3, $4)`,
            [f.tenantId, actor.userId, p.field, p.value],
          );
        return actor;
      };
      officerA = await limit(scoped(await user('Olivia Officer'), 'BR-A'));
      colleague = await limit(scoped(await user('Carl Colleague'), 'BR-A'));
      officerB = await limit(scoped(await user('Bob Branch'), 'BR-B'));
      ids.customerA = (
        await createCustomer(tx, f.admin, {
          firstName: 'Anna',
          lastName: 'Alpha',
          branchId: ids.branchA,
          email: 'anna@example.test',
          phone: '+33 6 12 34 56 78',
        })
      ).id;
      ids.optedOut = (
        await createCustomer(tx, f.admin, {
          firstName: 'Otto',
          lastName: 'Out',
          branchId: ids.branchA,
          email: 'otto@example.test',
        })
      ).id;
      ids.customerB = (
        await createCustomer(tx, f.admin, {
          firstName: 'Bruno',
          lastName: 'Beta',
          branchId: ids.branchB,
          email: 'b@x.test',
        })
      ).id;
    });
    ids.loanOptedOut = (await f.disbursedLoan({ customerId: ids.optedOut })).loanId;
    await t((tx) => setCustomerOptIn(tx, f.admin, ids.optedOut, 'opted_out', 'asked by phone'));
    await seedDemoTemplates(db, [f.tenantId]);
  });
  afterAll(async () => {
    await smtp?.stop();
    await new Promise((resolve) => sms?.close(resolve));
    await drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const jobs = (messageId: string) =>
    db.system((tx) =>
      tx.query<{ id: string }>(
        `select id from jobs where name = 'conversations.deliver' and payload->>'messageId' = $1`,
        [messageId],
      ),
    );
  const jobCount = () =>
    db.system(async (tx) =>
      Number(
        (await tx.query<{ n: string }>(`select count(*) as n from jobs where name = 'conversations.deliver'`))[0].n,
      ),
    );
  const message = (id: string) =>
    t(
      async (tx) =>
        (
          await tx.query<{ status: string; error: string | null; provider_message_id: string | null; purpose: string }>(
            'select status, error, provider_message_id, purpose from conversation_messages where id = $1',
            [id],
          )
        )[0],
    );

  test('an opted-out customer gets no marketing message: 422 naming purpose with the reason, nothing queued, no job', async () => {
    const before = await jobCount();
    const error = await refusalOf(
      t((tx) =>
        startConversation(tx, officerA, {
          customerId: ids.optedOut,
          loanId: null,
          channel: 'email',
          purpose: 'marketing',
          subject: 'Offer',
          body: 'A new offer',
        }),
      ),
    );
    expect(error.status).toBe(422);
    expect(error.field).toBe('purpose');
    expect(error.message).toMatch(/opted out: marketing messages are not sent/);
    expect(error.key).toBe('conversationOptedOutMarketing');
    expect(await jobCount()).toBe(before);
    expect(
      await t((tx) => tx.query('select 1 from conversations where customer_id = $1', [ids.optedOut])),
    ).toHaveLength(0);
    // The template path applies the same rule.
    const viaTemplate = await refusalOf(
      t((tx) =>
        queueTemplateMessage(tx, f.tenantId, { templateCode: 'new_offer', customerId: ids.optedOut, createdBy: 'x' }),
      ),
    );
    expect(viaTemplate.status).toBe(422);
    // A marketing template sent as "service" about a loan (to slip past the opt-out) is refused too.
    const [offer] = await t((tx) =>
      tx.query<{ id: string }>(`select id from message_templates where code = 'new_offer'`),
    );
    const disguised = await refusalOf(
      t((tx) =>
        startConversation(tx, officerA, {
          customerId: ids.optedOut,
          loanId: ids.loanOptedOut,
          channel: 'email',
          purpose: 'service',
          templateId: offer.id,
          subject: 'Offer',
          body: 'A new offer',
        }),
      ),
    );
    expect(disguised.status).toBe(422);
    expect(disguised.field).toBe('purpose');
    expect(await jobCount()).toBe(before);
  });

  test('a service message about one of their loans is allowed and marked service; the template renders the loan variables', async () => {
    const queued = await t((tx) =>
      queueTemplateMessage(tx, f.tenantId, {
        templateCode: 'payment_reminder',
        customerId: ids.optedOut,
        loanId: ids.loanOptedOut,
        language: 'fr',
        createdBy: officerA.userId,
      }),
    );
    const m = await message(queued.messageId);
    expect(m.status).toBe('queued');
    expect(m.purpose).toBe('service');
    expect(await jobs(queued.messageId)).toHaveLength(1);
    const [row] = await t((tx) =>
      tx.query<{ subject: string; body: string }>('select subject, body from conversation_messages where id = $1', [
        queued.messageId,
      ]),
    );
    expect(row.subject).toMatch(/^Rappel de paiement pour le prêt \S+/);
    expect(row.body).toContain('Bonjour Otto Out');
    expect(row.body).not.toContain('{{');
  });

  test('delivery by e-mail goes through the SMTP server with the thread reply token, once', async () => {
    const started = await t((tx) =>
      startConversation(tx, officerA, {
        customerId: ids.customerA,
        loanId: null,
        channel: 'email',
        purpose: 'service',
        subject: 'Your documents',
        body: 'Please send your payslip.',
      }),
    );
    const thread = await t((tx) => getThread(tx, officerA, started.conversationId));
    const first = await deliverMessage(db, f.tenantId, started.messageId, { attempts: 1, maxAttempts: 5 }, config());
    expect(first.status).toBe('sent');
    const mail = smtp.messages.at(-1)!;
    expect(mail).toMatch(/^To: anna@example\.test/m);
    expect(mail).toContain(`Reply-To: reply+${thread.reply_token}@mail.test`);
    expect(mail.replace(/\r?\n\s+/g, ' ')).toContain(
      `Message-ID: <${started.messageId}.${thread.reply_token}@mail.test>`,
    );
    expect(mail).toContain('Please send your payslip.');
    const m = await message(started.messageId);
    expect(m.status).toBe('sent');
    expect(m.provider_message_id).toBe(`<${started.messageId}.${thread.reply_token}@mail.test>`);
    // The job runs again (a retry after a lost lease): nothing more is sent.
    const count = smtp.messages.length;
    expect(
      (await deliverMessage(db, f.tenantId, started.messageId, { attempts: 2, maxAttempts: 5 }, config())).status,
    ).toBe('skipped');
    expect(smtp.messages.length).toBe(count);
  });

  test('delivery by SMS posts the documented request to the provider; a 5xx retries, a 4xx fails at once', async () => {
    const post = (body: string) =>
      t(async (tx) => {
        const [thread] = await tx.query<{ id: string }>(
          `select id from conversations where customer_id = $1 and channel = 'email' limit 1`,
          [ids.customerA],
        );
        return postMessage(tx, officerA, {
          conversationId: thread.id,
          kind: 'sms',
          purpose: 'service',
          subject: '',
          body,
          mentions: [],
        });
      });
    smsRequests.length = 0;
    const ok = await post('Your payment is due tomorrow.');
    await deliverMessage(db, f.tenantId, ok.messageId, { attempts: 1, maxAttempts: 5 }, config());
    expect(smsRequests).toEqual([
      {
        auth: 'Bearer sms-token',
        body: { to: '+33 6 12 34 56 78', body: 'Your payment is due tomorrow.', reference: ok.messageId },
      },
    ]);
    expect(await message(ok.messageId)).toMatchObject({ status: 'sent', provider_message_id: 'sms:sms-1' });

    smsAnswer = { status: 503, body: 'busy' };
    const retried = await post('Second try');
    await expect(
      deliverMessage(db, f.tenantId, retried.messageId, { attempts: 1, maxAttempts: 3 }, config()),
    ).rejects.toThrow(/503/);
    expect(await message(retried.messageId)).toMatchObject({
      status: 'queued',
      error: 'SMS provider answered 503: busy',
    });
    await expect(
      deliverMessage(db, f.tenantId, retried.messageId, { attempts: 3, maxAttempts: 3 }, config()),
    ).rejects.toThrow();
    expect((await message(retried.messageId)).status).toBe('failed');

    smsAnswer = { status: 400, body: '{"error":"bad number"}' };
    const refused = await post('Refused');
    const error = await deliverMessage(
      db,
      f.tenantId,
      refused.messageId,
      { attempts: 1, maxAttempts: 5 },
      config(),
    ).catch((e) => e);
    expect(error.name).toBe('PermanentJobError');
    expect(await message(refused.messageId)).toMatchObject({ status: 'failed' });
    smsAnswer = { status: 200, body: '{"id":"sms-2"}' };
  });

  test('the conversations.deliver job retries a 5xx with back-off until the provider takes the SMS, then is done', async () => {
    const [thread] = await t((tx) =>
      tx.query<{ id: string }>(`select id from conversations where customer_id = $1 and channel = 'email'`, [
        ids.customerA,
      ]),
    );
    const queued = await t((tx) =>
      postMessage(tx, officerA, {
        conversationId: thread.id,
        kind: 'sms',
        purpose: 'service',
        subject: '',
        body: 'Through the worker',
        mentions: [],
      }),
    );
    const [job] = await jobs(queued.messageId);
    let calls = 0;
    smsAnswer = { status: 503, body: 'busy' };
    const handler: JobHandler = async (ctx) => {
      if ((ctx.payload.messageId as string) === queued.messageId && ++calls === 3)
        smsAnswer = { status: 200, body: '{"id":"sms-w"}' };
      return deliverMessage(
        ctx.db,
        ctx.tenantId!,
        ctx.payload.messageId as string,
        { attempts: ctx.job.attempts, maxAttempts: ctx.job.maxAttempts },
        config(),
      );
    };
    const worker = startWorker(db, {
      handlers: new Map([[DELIVER_JOB, handler]]),
      pollMs: 20,
      backoffBaseMs: 1,
      concurrency: 1,
    });
    try {
      for (let i = 0; i < 100; i++) {
        await worker.idle();
        if ((await getJob(db, job.id))?.status !== 'queued') break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await worker.stop();
    }
    expect(await getJob(db, job.id)).toMatchObject({ status: 'succeeded', attempts: 3 });
    expect(await message(queued.messageId)).toMatchObject({
      status: 'sent',
      provider_message_id: 'sms:sms-w',
      error: null,
    });
    expect(smsRequests.filter((r) => r.body.reference === queued.messageId)).toHaveLength(3);
    smsAnswer = { status: 200, body: '{"id":"sms-2"}' };
  });

  test('the webhook signature: good, bad, old and missing', () => {
    const body = '{"type":"sms"}';
    const now = Math.floor(Date.now() / 1000);
    const good = signWebhook(SECRET, 'msg_1', now, body);
    expect(verifyWebhook(SECRET, { id: 'msg_1', timestamp: String(now), signature: good }, body)).toBe(true);
    expect(verifyWebhook(SECRET, { id: 'msg_1', timestamp: String(now), signature: `v1,x ${good}` }, body)).toBe(true);
    expect(verifyWebhook(SECRET, { id: 'msg_1', timestamp: String(now), signature: good }, body + ' ')).toBe(false);
    expect(verifyWebhook(SECRET, { id: 'msg_2', timestamp: String(now), signature: good }, body)).toBe(false);
    const old = now - 6 * 60;
    expect(
      verifyWebhook(
        SECRET,
        { id: 'msg_1', timestamp: String(old), signature: signWebhook(SECRET, 'msg_1', old, body) },
        body,
      ),
    ).toBe(false);
    expect(verifyWebhook(SECRET, { id: 'msg_1', timestamp: String(now), signature: null }, body)).toBe(false);
    expect(verifyWebhook(undefined, { id: 'msg_1', timestamp: String(now), signature: good }, body)).toBe(false);
  });

  test('an e-mail reply finds its thread by reply token, once; participants are notified; a replay stores nothing', async () => {
    const [thread] = await t((tx) =>
      tx.query<{ id: string; reply_token: string }>(
        `select id, reply_token from conversations where customer_id = $1 and channel = 'email'`,
        [ids.customerA],
      ),
    );
    const body = inboundBody.parse({
      type: 'email',
      from: 'anna@example.test',
      to: `Support <reply+${thread.reply_token}@mail.test>`,
      subject: 'Re: Your documents',
      text: 'Here is my payslip.',
      messageId: '<reply-1@example.test>',
    });
    const first = await receiveInbound(db, body, null);
    expect(first).toMatchObject({ status: 'stored', conversationId: thread.id });
    expect(await receiveInbound(db, body, null)).toEqual({ status: 'duplicate' });
    const messages = await t((tx) => listMessages(tx, officerA, thread.id));
    expect(messages.filter((m) => m.kind === 'inbound').map((m) => [m.body, m.status])).toEqual([
      ['Here is my payslip.', 'received'],
    ]);
    const notes = await t((tx) =>
      tx.query<{ kind: string; link: string }>('select kind, link from notifications where user_id = $1', [
        officerA.userId,
      ]),
    );
    expect(notes).toContainEqual({ kind: 'message', link: `/loans/conversations/${thread.id}` });
    expect(
      await receiveInbound(
        db,
        { ...body, to: 'reply+00000000000000000000000000000000@mail.test', messageId: 'x' },
        null,
      ),
    ).toEqual({
      status: 'unknown_sender',
    });
  });

  test('an SMS finds the customer by phone in the tenant named by the URL; an unknown number is stored nowhere', async () => {
    const sms = (from: string, messageId: string, slug: string | null) =>
      receiveInbound(db, inboundBody.parse({ type: 'sms', from, to: '+100', text: 'OK thanks', messageId }), slug);
    const stored = await sms('+33612345678', 'sms-in-1', f.tenantId);
    expect(stored.status).toBe('stored');
    const thread = await t((tx) => getThread(tx, officerA, (stored as { conversationId: string }).conversationId));
    expect([thread.customer_id, thread.channel]).toEqual([ids.customerA, 'sms']);
    // The next SMS joins the same open SMS thread.
    expect(await sms('0033 6 12 34 56 78'.replace('0033 ', '+33'), 'sms-in-2', f.tenantId)).toMatchObject({
      conversationId: thread.id,
    });
    expect(await sms('+19999999999', 'sms-in-3', f.tenantId)).toEqual({ status: 'unknown_sender' });
    expect(await sms('+33612345678', 'sms-in-4', 'no-such-tenant')).toEqual({ status: 'unknown_sender' });
  });

  test('a note @mentioning a colleague notifies them; unread counts follow reads', async () => {
    const [thread] = await t((tx) =>
      tx.query<{ id: string }>(`select id from conversations where customer_id = $1 and channel = 'email'`, [
        ids.customerA,
      ]),
    );
    await t((tx) => markRead(tx, colleague, thread.id));
    // Unread for the colleague: the SMS thread and the payment reminder to Otto (both in branch A).
    expect(await t((tx) => unreadThreadCount(tx, colleague))).toBe(2);
    await t((tx) =>
      postMessage(tx, officerA, {
        conversationId: thread.id,
        kind: 'note',
        purpose: 'service',
        subject: '',
        body: '@Carl Colleague can you check the payslip?',
        // Bob works in another branch: he does not see this customer, so he is not mentioned.
        mentions: [colleague.userId, officerB.userId],
      }),
    );
    expect(
      await t((tx) =>
        tx.query(`select 1 from notifications where user_id = $1 and kind = 'mention'`, [officerB.userId]),
      ),
    ).toHaveLength(0);
    const mentions = await t((tx) =>
      tx.query<{ link: string }>(`select link from notifications where user_id = $1 and kind = 'mention'`, [
        colleague.userId,
      ]),
    );
    expect(mentions).toEqual([{ link: `/loans/conversations/${thread.id}` }]);
    expect(await t((tx) => unreadThreadCount(tx, colleague))).toBe(3);
    const list = await t((tx) => listThreads(tx, colleague, { unreadOnly: true }));
    expect(list.find((x) => x.id === thread.id)?.unread).toBe(1);
    expect((await t((tx) => listThreads(tx, colleague, { mine: true }))).map((x) => x.id)).toContain(thread.id);
    await t((tx) => markRead(tx, colleague, thread.id));
    expect(await t((tx) => unreadThreadCount(tx, colleague))).toBe(2);
    // The author's own note is not unread for them.
    await t((tx) => markRead(tx, officerA, thread.id));
    expect((await t((tx) => listThreads(tx, officerA, {}))).find((x) => x.id === thread.id)?.unread).toBe(0);
  });

  test('tasks due for the nav: open tasks assigned to me due on or before the business date', async () => {
    await t(async (tx) => {
      for (const [title, due] of [
        ['late', '2026-01-10'],
        ['today', '2026-01-15'],
        ['later', '2026-02-01'],
      ] as const)
        await createTask(tx, f.tenantId, {
          title,
          assigneeUserId: colleague.userId,
          dueDate: due,
          source: 'manual',
          createdBy: 'test',
        });
    });
    expect(await t((tx) => dueTaskCount(tx, colleague.userId, '2026-01-15'))).toBe(2);
  });

  test('scope: another branch’s threads are 404 and absent from lists; its customers cannot be written to', async () => {
    const b = await t((tx) =>
      startConversation(tx, officerB, {
        customerId: ids.customerB,
        loanId: null,
        channel: 'email',
        purpose: 'service',
        subject: 'Hello',
        body: 'Hello Bruno',
      }),
    );
    const notFound = await refusalOf(t((tx) => getThread(tx, officerA, b.conversationId)));
    expect(notFound.status).toBe(404);
    expect((await refusalOf(t((tx) => listMessages(tx, officerA, b.conversationId)))).status).toBe(404);
    expect(
      (
        await refusalOf(
          t((tx) =>
            postMessage(tx, officerA, {
              conversationId: b.conversationId,
              kind: 'note',
              purpose: 'service',
              subject: '',
              body: 'x',
              mentions: [],
            }),
          ),
        )
      ).status,
    ).toBe(404);
    expect(
      (
        await refusalOf(
          t((tx) =>
            startConversation(tx, officerA, {
              customerId: ids.customerB,
              loanId: null,
              channel: 'email',
              purpose: 'service',
              subject: 's',
              body: 'b',
            }),
          ),
        )
      ).status,
    ).toBe(404);
    expect((await t((tx) => listThreads(tx, officerA, {}))).map((x) => x.id)).not.toContain(b.conversationId);
    expect(await t((tx) => unreadThreadCount(tx, officerB))).toBe(0);
  });

  test('e-mail attachments are checked on their bytes, stored with the message and sent with the e-mail', async () => {
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
    const refused = await refusalOf(
      Promise.resolve().then(() =>
        checkUploads([{ fileName: 'invoice.pdf', contentType: 'application/pdf', bytes: Buffer.from('MZ not a pdf') }]),
      ),
    );
    expect([refused.status, refused.field]).toEqual([422, 'file']);
    const files = checkUploads([{ fileName: '../../etc/statement.pdf', contentType: 'text/plain', bytes: pdf }]);
    expect(files.map((f) => [f.fileName, f.contentType])).toEqual([['statement.pdf', 'application/pdf']]);
    const started = await t((tx) =>
      startConversation(
        tx,
        officerA,
        {
          customerId: ids.customerA,
          loanId: null,
          channel: 'email',
          purpose: 'service',
          subject: 'Your statement',
          body: 'Attached.',
        },
        files,
        attachmentStore(dataDir),
      ),
    );
    const [message] = await t((tx) => listMessages(tx, officerA, started.conversationId));
    expect(message.attachments.map((a) => [a.fileName, a.contentType, a.sizeBytes])).toEqual([
      ['statement.pdf', 'application/pdf', pdf.length],
    ]);
    await deliverMessage(db, f.tenantId, started.messageId, { attempts: 1, maxAttempts: 5 }, config());
    const mail = smtp.messages.at(-1)!;
    expect(mail).toContain('filename=statement.pdf');
    expect(mail).toContain(pdf.toString('base64').slice(0, 40));
  });
});
