import type { Tx } from '../../platform/db/client.js';
import { OutboundBlockedError } from '../../platform/outbound/safe-fetch.js';
import * as cards from '../cards/index.js';
import { findQueue, membersOf, nextFromQueue } from '../distribution/index.js';
import { createTask, taskInput } from '../tasks/index.js';
import { webhookHeaders } from '../webhooks/index.js';
import type { ActionEnv, Output } from './action-env.js';
import { pick } from './fan-out.js';
import { sendEmail, sendTemplateMessage } from './messaging.js';
import type { Action } from './schema.js';

export type { ActionEnv, Output } from './action-env.js';

/** An action failure worth another attempt later (a receiver down or overloaded), not a rule saying no. */
export class RetryableError extends Error {}

function cardOf(env: ActionEnv) {
  const card = pick(env.event.data, 'card.documentId');
  const board = pick(env.event.data, 'card.board.documentId');
  if (typeof card !== 'string' || typeof board !== 'string') throw new Error('the event names no card');
  return { card, board };
}

async function currentCard(env: ActionEnv) {
  const { card, board } = cardOf(env);
  return { card, board, current: await cards.getCard(env.ctx, board, card, undefined) };
}

const hoursFromNow = (h: number) => new Date(Date.now() + h * 3_600_000).toISOString();

export async function runAction(env: ActionEnv, a: Action): Promise<Output> {
  switch (a.type) {
    case 'move_card': {
      const { card, board } = cardOf(env);
      const output = { card, phase: a.params.phase };
      env.arm(output);
      await cards.moveCard(env.ctx, board, card, a.params.phase);
      return output;
    }
    case 'assign': {
      const { card, board, current } = await currentCard(env);
      const membership = a.params.membership ?? (await fromQueue(env, a.params.distributionQueue!));
      const assignees = [...new Set([...current.assignees.map((m) => m.documentId), membership])];
      const output = { card, membership };
      env.arm(output);
      await cards.updateCard(env.ctx, board, card, { assignees });
      return output;
    }
    case 'add_tag':
    case 'remove_tag': {
      const { card, board, current } = await currentCard(env);
      const ref = a.params.tag;
      const has = (t: { documentId: string; slug: string }) => t.documentId === ref || t.slug === ref;
      const others = current.tags.filter((t) => !has(t)).map((t) => t.documentId);
      const output = { card, tag: ref };
      env.arm(output);
      await cards.updateCard(env.ctx, board, card, {
        tags: a.type === 'add_tag' ? [...others, ref] : others,
      });
      return output;
    }
    case 'set_field': {
      const { card, board } = cardOf(env);
      const output = { card, slug: a.params.slug };
      env.arm(output);
      await cards.updateCard(env.ctx, board, card, { fields: { [a.params.slug]: a.params.value ?? null } });
      return output;
    }
    case 'set_due_date': {
      const { card, board } = cardOf(env);
      const dueDate = hoursFromNow(a.params.inHours);
      const output = { card, dueDate };
      env.arm(output);
      await cards.updateCard(env.ctx, board, card, { dueDate }, { dueDateSource: 'automation' });
      return output;
    }
    case 'create_task': {
      const card = pick(env.event.data, 'card.documentId');
      const input = taskInput.parse({
        name: a.params.name,
        ...(a.params.dueInHours !== undefined ? { dueDate: hoursFromNow(a.params.dueInHours) } : {}),
        ...(typeof card === 'string' && env.event.type !== 'card.deleted' ? { card } : {}),
        assignees: a.params.assignees ?? [],
      });
      env.arm({ name: input.name });
      const task = await createTask({ config: env.config, jobs: env.jobs }, env.ctx, input);
      return { task: task.documentId };
    }
    case 'http_request':
      return httpRequest(env, a.params);
    case 'send_email':
      return sendEmail(env, a.params);
    case 'send_template_message':
      return sendTemplateMessage(env, a.params);
  }
}

async function fromQueue(env: ActionEnv, queueRef: string): Promise<string> {
  const chosen = await env.db.tenantTransaction(env.ctx.orgId, async (tx: Tx) => {
    const queue = await findQueue(tx, env.ctx.orgId, queueRef);
    if (!queue) throw new Error(`the distribution queue ${queueRef} no longer exists`);
    const id = await nextFromQueue(tx, env.ctx.orgId, queue.id);
    if (id === undefined) return undefined;
    const members = await membersOf(tx, env.ctx.orgId, [queue.id]);
    return members.find((m) => m.membershipId === id)?.membershipDocumentId;
  });
  if (!chosen) throw new Error(`the distribution queue ${queueRef} has no active member`);
  return chosen;
}

/** Signed like a webhook (Standard Webhooks), through the SSRF-safe fetch (10 s, response capped). */
async function httpRequest(
  env: ActionEnv,
  // Headers as opened by the runner (runner.ts `actionsOf`): stored sealed, never null once saved.
  p: { url: string; method?: string; headers?: Record<string, string | null>; body?: unknown },
): Promise<Output> {
  const method = p.method ?? 'POST';
  const body = method === 'GET' ? '' : JSON.stringify(p.body ?? env.event);
  let res: Response;
  try {
    res = await env.fetch(p.url, {
      method,
      headers: {
        ...Object.fromEntries(
          Object.entries(p.headers ?? {}).filter((e): e is [string, string] => e[1] !== null),
        ),
        ...webhookHeaders(env.secret, env.messageId, body),
      },
      ...(method === 'GET' ? {} : { body }),
    });
  } catch (err) {
    const e = err as Error & { cause?: Error };
    // Refused by the outbound rules: a configuration error, not worth retrying.
    const blocked = [e, e.cause].find((x) => x instanceof OutboundBlockedError);
    if (blocked) throw blocked;
    throw new RetryableError(e.cause?.message ? `${e.message}: ${e.cause.message}` : e.message);
  }
  // Read through the cap: a larger answer fails the action (ResponseTooLargeError says so).
  const text = await res.text();
  if (res.status >= 500 || res.status === 429) throw new RetryableError(`HTTP ${res.status}`);
  if (res.status >= 400) throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
  return { status: res.status, body: text.slice(0, 1000) };
}
