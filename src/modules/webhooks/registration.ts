import type { ModuleRegistration } from '../../platform/modules.js';
import { registerWebhookWorkers, webhookFanOut } from './delivery.js';

/** What the platform runs for the webhooks module (src/platform/modules.ts). */
export const webhooksModule: ModuleRegistration = {
  name: 'webhooks',
  registerWorkers: registerWebhookWorkers,
  eventConsumers: [webhookFanOut],
};
