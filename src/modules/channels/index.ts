// The channels module's public face: what other modules may use (docs/decisions.md, "Modules talk through index.ts").

export type { ChannelKit, ChannelProvider } from './credentials.js';
export { channelProvider, lazyChannelKit, openCredentials } from './credentials.js';
export {
  bookRecipientSlot,
  channelRate,
  holdChannel,
  holdRecipient,
  limitBackoffMs,
  type PaceConfig,
  pacedSend,
  reserveChannelSlots,
  takeRecipientSlots,
  touchRecipients,
} from './pacing.js';
export type { ChannelRow } from './repo.js';
export { findChannel, findChannelById } from './repo.js';
export { CHANNEL_TYPES } from './schema.js';
export { findChannelOr404, requireChannelsFeature } from './service.js';
