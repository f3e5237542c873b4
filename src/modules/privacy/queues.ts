import type { QueueDef } from '../../platform/jobs/jobs.js';

/** A data export or an erasure: one job per request (the request row says which). */
export const privacyRequestQueue: QueueDef = {
  name: 'privacy-request',
  retryLimit: 2,
  retryDelay: 30,
  expireInSeconds: 3600,
};

/** An export's file removed at its link's expiry. */
export const exportExpiryQueue: QueueDef = { name: 'privacy-export-expiry', retryLimit: 5 };

export interface PrivacyJobData {
  orgId: number;
  requestId: number;
  /** Who asked (the audit entry's actor). */
  userId: number;
}
