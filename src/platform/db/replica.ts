import type pg from 'pg';

/**
 * Reads that may lag go to the streaming standby of DATABASE_REPLICA_URL when it is up, within
 * CRM_REPLICA_MAX_LAG_MS and has replayed the asking user's last write; else to the primary. How lag and the write
 * marks are measured: docs/decisions.md "Reads that may lag: routing to the standby".
 */
export const MEASURE_EVERY_MS = 500;
/** How long a user's write mark is kept (in memory and Redis): once the standby passes it, it no longer matters. */
export const WRITE_MARK_MS = 60_000;
/** A standby found not to answer is not tried again before the next measurement. */
const CONNECT_TIMEOUT_MS = 2_000;

export type LaggingTarget = 'replica' | 'primary';
/**
 * Why a lagging read went where it did: `caught_up` (the replica), `own_write` (the user's last write is not
 * replayed yet), `behind` (lag over the budget), `down` (the standby does not answer, or is not a standby),
 * `error` (the read failed on the standby and ran again on the primary).
 */
export type LaggingReason = 'caught_up' | 'own_write' | 'behind' | 'down' | 'error';
export type LaggingReadObserver = (target: LaggingTarget, reason: LaggingReason) => void;

/** The write marks of users, by key (writerKey). */
export interface WriteMarks {
  get(writer: string): Promise<bigint | undefined>;
  set(writer: string, lsn: bigint): Promise<void>;
}

/** The key of a user's write marks: the person, whichever session, token or organization wrote. */
export const writerKey = (userId: number) => `u${userId}`;

/** A WAL position `X/Y` as a number. */
export function lsnValue(lsn: string): bigint {
  const [hi, lo] = lsn.split('/');
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}

/** Marks in this process, each forgotten WRITE_MARK_MS after it was set. */
export class MemoryWriteMarks implements WriteMarks {
  private readonly marks = new Map<string, { lsn: bigint; until: number }>();
  async get(writer: string) {
    const m = this.marks.get(writer);
    if (!m) return undefined;
    if (m.until < Date.now()) {
      this.marks.delete(writer);
      return undefined;
    }
    return m.lsn;
  }
  async set(writer: string, lsn: bigint) {
    if (this.marks.size >= 10_000) {
      const now = Date.now();
      for (const [k, m] of this.marks) if (m.until < now) this.marks.delete(k);
      // Still full of live marks: the oldest go (a Map iterates in insertion order).
      for (const k of this.marks.keys()) {
        if (this.marks.size < 10_000) break;
        this.marks.delete(k);
      }
    }
    const prev = this.marks.get(writer);
    this.marks.delete(writer);
    this.marks.set(writer, {
      lsn: prev && prev.lsn > lsn ? prev.lsn : lsn,
      until: Date.now() + WRITE_MARK_MS,
    });
  }
}

/** What a measurement found. */
export interface ReplicaState {
  up: boolean;
  /** Milliseconds the standby may miss (Infinity when unknown). */
  lagMs: number;
  /** The standby's replay position (0 when down). */
  replayLsn: bigint;
  measuredAt: number;
  /** Why it is down. */
  problem?: string;
}

export type ReadTransaction = <T, Tx>(orgId: number, fn: (tx: Tx) => Promise<T>) => Promise<T>;

export class ReplicaReads {
  readonly observers = new Set<LaggingReadObserver>();
  /** This process's marks; always kept, also when `shared` is set. */
  readonly marks = new MemoryWriteMarks();
  /** Marks every process sees (Redis, when REDIS_URL is set: http/read-your-writes.ts). */
  shared?: WriteMarks;
  private state?: ReplicaState;
  private measuring?: Promise<ReplicaState>;

  constructor(
    /** The primary's pool (its WAL position). */
    private readonly primary: pg.Pool,
    /** DATABASE_REPLICA_URL's pool. */
    readonly pool: pg.Pool,
    /** CRM_REPLICA_MAX_LAG_MS (tests change it). */
    public maxLagMs: number,
    /** A read-only tenant transaction on the standby (RLS as on the primary: db/client.ts). */
    readonly transaction: <T>(orgId: number, fn: (tx: any) => Promise<T>) => Promise<T>,
    private readonly log: (msg: string) => void = (msg) => console.warn(`database replica: ${msg}`),
  ) {}

  /** The last measurement (metrics), if any. */
  get last(): ReplicaState | undefined {
    return this.state;
  }

  /** Where a lagging read of `writer` (writerKey) goes now, and why. */
  async route(writer?: string): Promise<{ target: LaggingTarget; reason: LaggingReason }> {
    const s = await this.current();
    if (!s.up) return { target: 'primary', reason: 'down' };
    if (s.lagMs > this.maxLagMs) return { target: 'primary', reason: 'behind' };
    if (writer !== undefined) {
      const mark = await this.markOf(writer);
      // undefined: the shared marks could not be read.
      if (mark === undefined || (mark !== null && mark > s.replayLsn))
        return { target: 'primary', reason: 'own_write' };
    }
    return { target: 'replica', reason: 'caught_up' };
  }

  /**
   * Where a lagging read of a job goes (an export): the replica only once it has replayed `position`, the
   * primary's WAL position when the job began (position()), so the job sees at least what was committed before it
   * ran, the request that queued it included ('own_write' until then).
   */
  async routeAt(position: bigint): Promise<{ target: LaggingTarget; reason: LaggingReason }> {
    const s = await this.current();
    if (!s.up) return { target: 'primary', reason: 'down' };
    if (s.lagMs > this.maxLagMs) return { target: 'primary', reason: 'behind' };
    if (position > s.replayLsn) return { target: 'primary', reason: 'own_write' };
    return { target: 'replica', reason: 'caught_up' };
  }

  /** The primary's WAL insert position now; failing to read it, the highest there is (the primary answers). */
  async position(): Promise<bigint> {
    try {
      const { rows } = await this.primary.query<{ lsn: string }>(
        'select pg_current_wal_insert_lsn()::text as lsn',
      );
      return lsnValue(rows[0].lsn);
    } catch (err) {
      this.log(`the primary's WAL position could not be read (${(err as Error).message})`);
      return 0xffff_ffff_ffff_ffffn;
    }
  }

  /**
   * The writer's mark: the later of this process's and the shared one; null when it has none.
   * Redis unreachable: as if the user had just written (the primary answers), not as if they never had.
   */
  private async markOf(writer: string): Promise<bigint | null | undefined> {
    const own = await this.marks.get(writer);
    if (!this.shared) return own ?? null;
    let shared: bigint | undefined;
    try {
      shared = await this.shared.get(writer);
    } catch {
      return undefined;
    }
    if (own === undefined) return shared ?? null;
    return shared !== undefined && shared > own ? shared : own;
  }

  /**
   * Marks a write of `writer` that has committed: the primary's WAL insert position now is at or past its commit
   * record. Failing to read it, the mark is the highest position there is (the user reads from the primary until
   * it is forgotten).
   */
  async recordWrite(writer: string): Promise<void> {
    const lsn = await this.position();
    await this.marks.set(writer, lsn);
    await this.shared?.set(writer, lsn).catch((err: Error) => {
      this.log(
        `a write mark could not be shared (${err.message}): other processes may read it from the replica`,
      );
    });
  }

  /** A read failed on the standby for a reason of its own: it is left alone until the next measurement. */
  fault(err: unknown): void {
    const message = (err as Error)?.message ?? String(err);
    this.update({ up: false, lagMs: Infinity, replayLsn: 0n, measuredAt: Date.now(), problem: message });
  }

  /** Tells the observers (metrics) where a lagging read went. */
  observe(target: LaggingTarget, reason: LaggingReason): void {
    for (const o of this.observers) o(target, reason);
  }

  private current(): Promise<ReplicaState> {
    const s = this.state;
    if (s && Date.now() - s.measuredAt < MEASURE_EVERY_MS) return Promise.resolve(s);
    return this.measureNow();
  }

  /** A measurement now (one at a time: callers meanwhile share it). */
  private measureNow(): Promise<ReplicaState> {
    this.measuring ??= this.measure().finally(() => {
      this.measuring = undefined;
    });
    return this.measuring;
  }

  /**
   * Waits up to `withinMs` for the standby to replay `position` (a job's start: the job's own claim was committed
   * a moment before, and a standby replays it milliseconds later; a job can wait that long to spare the primary).
   * Returns at once when the standby is down or behind its budget; routeAt then decides as always.
   */
  async awaitReplay(position: bigint, withinMs: number): Promise<void> {
    const until = Date.now() + withinMs;
    for (;;) {
      const s = await this.measureNow();
      if (!s.up || s.lagMs > this.maxLagMs || position <= s.replayLsn || Date.now() >= until) return;
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  private async measure(): Promise<ReplicaState> {
    let primaryLsn: bigint | undefined;
    try {
      const { rows } = await this.primary.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn');
      primaryLsn = lsnValue(rows[0].lsn);
    } catch {
      // The primary's own trouble shows elsewhere; the standby's lag is then its replay timestamp's age.
    }
    let next: ReplicaState;
    try {
      const { rows } = await withTimeout(
        this.pool.query<{ standby: boolean; replay: string | null; age_ms: number | null }>(
          `select pg_is_in_recovery() as standby, pg_last_wal_replay_lsn()::text as replay,
             (extract(epoch from now() - pg_last_xact_replay_timestamp()) * 1000)::float8 as age_ms`,
        ),
        CONNECT_TIMEOUT_MS * 2,
      );
      const r = rows[0];
      if (!r.standby || r.replay === null) {
        next = {
          up: false,
          lagMs: Infinity,
          replayLsn: 0n,
          measuredAt: Date.now(),
          problem: 'not a standby (promoted, or DATABASE_REPLICA_URL names a primary): never written to',
        };
      } else {
        const replayLsn = lsnValue(r.replay);
        const lagMs =
          primaryLsn !== undefined && replayLsn >= primaryLsn ? 0 : Math.max(0, r.age_ms ?? Infinity);
        next = { up: true, lagMs, replayLsn, measuredAt: Date.now() };
      }
    } catch (err) {
      next = {
        up: false,
        lagMs: Infinity,
        replayLsn: 0n,
        measuredAt: Date.now(),
        problem: (err as Error).message,
      };
    }
    this.update(next);
    return next;
  }

  /** Keeps a new state; says so in the log when the standby goes down, comes back, falls behind or catches up. */
  private update(next: ReplicaState) {
    const was = this.state ? condition(this.state, this.maxLagMs) : 'ok';
    const now = condition(next, this.maxLagMs);
    this.state = next;
    if (was === now) return;
    if (now === 'down') this.log(`not used (${next.problem}): lagging reads go to the primary`);
    else if (now === 'behind')
      this.log(
        `${Math.round(next.lagMs)} ms behind (budget ${this.maxLagMs} ms): lagging reads go to the primary`,
      );
    else this.log('caught up: lagging reads go to the replica again');
  }
}

const condition = (s: ReplicaState, maxLagMs: number) =>
  !s.up ? 'down' : s.lagMs > maxLagMs ? 'behind' : 'ok';

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

export const REPLICA_CONNECT_TIMEOUT_MS = CONNECT_TIMEOUT_MS;
