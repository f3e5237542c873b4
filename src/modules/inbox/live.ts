import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import type { Database, Tx } from '../../platform/db/client.js';
import type { TenantContext } from '../../platform/tenancy/context.js';
import * as messagesRepo from './messages-repo.js';
import { LIVE_CHANNEL, type LiveNotice } from './notify.js';
import * as repo from './repo.js';
import { canSee, presentConversation, presentMessages } from './service.js';

/**
 * Live inbox updates (GET /conversations/events, docs/inbox.md "Live updates"). Every change NOTIFYs
 * LIVE_CHANNEL in its transaction (notify.ts); each API process LISTENs on one connection of its own
 * (PostgreSQL), or on the embedded database (PGlite), so a reader connected to any process hears every change.
 * A notice is loaded once per process (only when a reader of its organization is connected there), then sent
 * to the readers allowed to see the conversation.
 */

const REPLAY_OVERLAP_MS = 5_000;
const REPLAY_LIMIT = 500;

/** The time a `Last-Event-ID` stands for; undefined when it names nothing this organization knows. */
async function replayStart(tx: Tx, orgId: number, lastEventId: string): Promise<Date | undefined> {
  const message = /^m(\d{1,18})$/.exec(lastEventId);
  if (message) return (await messagesRepo.findMessage(tx, orgId, Number(message[1])))?.createdAt ?? undefined;
  const change = /^c\d{1,18}-(\d{1,15})$/.exec(lastEventId);
  if (!change) return undefined;
  const at = new Date(Number(change[1]));
  return Number.isNaN(at.getTime()) || at.getTime() > Date.now() ? undefined : at;
}

export interface LiveReader {
  orgId: number;
  role: TenantContext['role'];
  membershipId: number;
  send(event: string, id: string, data: unknown): void;
}

export class LiveHub {
  private readers = new Map<number, Set<LiveReader>>();
  private starting: Promise<void> | undefined;
  private stopListening: (() => Promise<void>) | undefined;
  private closed = false;

  constructor(
    private db: Database,
    private log: FastifyBaseLogger,
  ) {}

  async subscribe(reader: LiveReader) {
    await this.start();
    const set = this.readers.get(reader.orgId) ?? new Set<LiveReader>();
    this.readers.set(reader.orgId, set);
    set.add(reader);
    return () => {
      set.delete(reader);
      if (set.size === 0) this.readers.delete(reader.orgId);
    };
  }

  private start() {
    this.starting ??= this.listen().catch((err) => {
      this.starting = undefined;
      throw err;
    });
    return this.starting;
  }

  private async listen() {
    const onPayload = (payload: string | undefined) => {
      if (!payload) return;
      let notice: LiveNotice;
      try {
        notice = JSON.parse(payload);
      } catch {
        return;
      }
      this.deliver(notice).catch((err) => this.log.warn({ err }, 'inbox live: delivery failed'));
    };
    if (this.db.pglite) {
      const unlisten = await this.db.pglite.listen(LIVE_CHANNEL, onPayload);
      this.stopListening = unlisten;
      return;
    }
    // A session of its own: through a transaction pooler a LISTEN would stay on whichever server connection ran it.
    const pool = (this.db.sessionPool ?? this.db.pool) as pg.Pool;
    const connect = async (): Promise<void> => {
      const client = await pool.connect();
      let released = false;
      const release = (err?: Error) => {
        if (released) return;
        released = true;
        client.removeAllListeners('notification');
        client.release(err ?? true);
      };
      client.on('notification', (m) => {
        if (m.channel === LIVE_CHANNEL) onPayload(m.payload);
      });
      // A lost listening connection is replaced (notices sent meanwhile are missed: readers re-read on reconnect).
      client.on('error', (err) => {
        // A connection can report more than one error; the first replaces it, the rest (and any after a release) are moot.
        if (released) return;
        this.log.warn({ err }, 'inbox live: listening connection lost');
        release(err);
        if (!this.closed) setTimeout(() => void connect().catch(() => {}), 1000).unref();
      });
      await client.query(`LISTEN ${LIVE_CHANNEL}`);
      this.stopListening = async () => release();
    };
    await connect();
  }

  private async deliver(notice: LiveNotice) {
    const set = this.readers.get(notice.orgId);
    if (!set?.size) return;
    const allowed = [...set].filter((r) => canSee(r, notice.assignee));
    if (allowed.length === 0) return;
    const data = await this.db.tenantTransaction(notice.orgId, async (tx) => {
      const [conv] = await repo.conversationsByIds(tx, notice.orgId, [notice.conversationId]);
      if (!conv) return null;
      const conversation = await presentConversation(tx, notice.orgId, conv);
      if (notice.type === 'conversation.updated')
        return { conversation, assignee: conv.assigneeMembershipId };
      const row = notice.messageId
        ? await messagesRepo.findMessage(tx, notice.orgId, notice.messageId)
        : undefined;
      if (!row) return null;
      const [message] = await presentMessages(tx, notice.orgId, [row]);
      return { conversation, message, assignee: conv.assigneeMembershipId };
    });
    if (!data) return;
    const { assignee, ...body } = data;
    const id = notice.messageId ? `m${notice.messageId}` : `c${notice.conversationId}-${Date.now()}`;
    // Both the assignee at the change and the current one must allow the reader.
    for (const r of allowed)
      if (canSee(r, assignee) || notice.type === 'conversation.updated') r.send(notice.type, id, body);
  }

  /**
   * What a reader reconnecting with `Last-Event-ID` missed: the conversations changed and the messages created
   * since the event it names (`m<messageId>`: that message's time; `c<conversationId>-<time>`: that time), with an
   * overlap of REPLAY_OVERLAP_MS for commits that landed out of order. At least once: an event seen twice has the
   * same id. At most REPLAY_LIMIT of each; an unknown id replays nothing.
   */
  async replay(reader: LiveReader, lastEventId: string) {
    const events = await this.db.tenantTransaction(reader.orgId, async (tx) => {
      const since = await replayStart(tx, reader.orgId, lastEventId);
      if (!since) return [];
      const from = new Date(since.getTime() - REPLAY_OVERLAP_MS);
      const changed = (await repo.conversationsChangedSince(tx, reader.orgId, from, REPLAY_LIMIT)).filter(
        (c) => canSee(reader, c.assigneeMembershipId),
      );
      const shown = new Map<number, Awaited<ReturnType<typeof presentConversation>>>();
      for (const c of changed) shown.set(c.id, await presentConversation(tx, reader.orgId, c));
      const rows = await messagesRepo.messagesSince(tx, reader.orgId, [...shown.keys()], from, REPLAY_LIMIT);
      const messages = await presentMessages(tx, reader.orgId, rows);
      const out: { event: string; id: string; data: unknown }[] = rows.map((row, i) => ({
        event: 'message.created',
        id: `m${row.id}`,
        data: { conversation: shown.get(row.conversationId), message: messages[i] },
      }));
      for (const c of changed)
        out.push({
          event: 'conversation.updated',
          id: `c${c.id}-${c.updatedAt.getTime()}`,
          data: { conversation: shown.get(c.id) },
        });
      return out;
    });
    for (const e of events) reader.send(e.event, e.id, e.data);
  }

  async close() {
    this.closed = true;
    this.readers.clear();
    await this.stopListening?.();
  }
}
