import { agentConfirmationsModule } from './modules/agent-confirmations/registration.js';
import { automationsModule } from './modules/automations/registration.js';
import { boardsModule } from './modules/boards/registration.js';
import { campaignsModule } from './modules/campaigns/registration.js';
import { cardsModule } from './modules/cards/registration.js';
import { channelsModule } from './modules/channels/registration.js';
import { consentsModule } from './modules/consents/registration.js';
import { contactsModule } from './modules/contacts/registration.js';
import { conversionPixelsModule } from './modules/conversion-pixels/registration.js';
import { inboxModule } from './modules/inbox/registration.js';
import { leadAdsModule } from './modules/lead-ads/registration.js';
import { oauthModule } from './modules/oauth/registration.js';
import { orgLifecycleModule } from './modules/org-lifecycle/registration.js';
import { privacyModule } from './modules/privacy/registration.js';
import { quotesModule } from './modules/quotes/registration.js';
import { tasksModule } from './modules/tasks/registration.js';
import { webhooksModule } from './modules/webhooks/registration.js';
import { eventOutbox } from './platform/events/dispatcher.js';
import { eventConsumersOf, type ModuleRegistration } from './platform/modules.js';

/**
 * What the platform runs for the modules (src/platform/modules.ts): pass it to migrateDatabase, runMaintenance /
 * startMaintenance; registerWorkers (src/workers.ts) reads it. The order is the order of application: the schema
 * statements run in it (a change of order changes the schema fingerprint: every database re-applies them once),
 * and so do the maintenance tasks, the workers' registration and the event consumers. Adding a module's
 * contribution = a `registration.ts` in its folder and one line here.
 */
export const modules: readonly ModuleRegistration[] = [
  tasksModule,
  cardsModule,
  contactsModule,
  campaignsModule,
  // The platform's event outbox (notify trigger, dispatcher), to every module's event consumers.
  eventOutbox(() => eventConsumersOf(modules)),
  boardsModule,
  webhooksModule,
  automationsModule,
  conversionPixelsModule,
  leadAdsModule,
  agentConfirmationsModule,
  inboxModule,
  orgLifecycleModule,
  privacyModule,
  channelsModule,
  consentsModule,
  oauthModule,
  quotesModule,
];
