/**
 * Whether this process should be sent traffic (`GET /api/ready`): `starting` until the database is migrated, the
 * demo organization exists (with `--demo`) and the workers run; `ready`; `stopping` from the moment a shutdown
 * begins (SIGTERM), while requests in flight still finish. Liveness (`/api/health`) is separate: a process that
 * is starting or stopping is alive.
 */
export type ReadinessState = 'starting' | 'ready' | 'stopping';

export interface Readiness {
  readonly state: ReadinessState;
  markReady(): void;
  markStopping(): void;
}

export function createReadiness(initial: ReadinessState = 'starting'): Readiness {
  let state = initial;
  return {
    get state() {
      return state;
    },
    markReady() {
      if (state === 'starting') state = 'ready';
    },
    markStopping() {
      state = 'stopping';
    },
  };
}
