import { buildApp } from '../../../src/app.js';
import { dispatchOrganization } from '../../../src/events.js';
import { sendDue } from '../../../src/modules/conversion-pixels/delivery.js';
import { getApp, testConfig } from '../../helpers/app.js';
import { type ConversionsPeer, startConversionsPeer } from '../../helpers/peers/conversions.js';

/** An app whose Conversions API is the local peer; `cycle` runs the dispatcher and the sender for `orgIds`. */
export async function conversionsEnv() {
  const peer: ConversionsPeer = await startConversionsPeer();
  const { db } = await getApp();
  const config = testConfig({ CRM_CONVERSIONS_API_URL: peer.url, CRM_PROVIDER_TIMEOUT_MS: 3000 });
  const app = await buildApp({ config, db });
  await app.ready();
  const orgIds = new Set<number>();
  return {
    app,
    db,
    config,
    peer,
    orgIds,
    async cycle() {
      for (const orgId of orgIds) await dispatchOrganization(db, orgId);
      return sendDue({ db, config }, orgIds);
    },
    async close() {
      await app.close();
      await peer.close();
    },
  };
}
