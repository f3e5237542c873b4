// The consents module's public face: what other modules may use (docs/decisions.md, "Modules talk through index.ts").
export {
  CONSENT_SKIP_REASONS,
  marketingBlocks,
  marketingRequiresConsent,
  marketingSkipReasonSql,
  marketingWithdrawn,
  skipSentence,
} from './gate.js';
export { keywordForm, withdrawByStopKeywords } from './keywords.js';
export { consentRoutes } from './routes.js';
export {
  consentColumnTarget,
  type ImportedConsent,
  importedConsent,
  isConsentTarget,
  parseConsentAnswer,
  recordImported,
  recordStatements,
  withdrawMarketingOnce,
} from './sources.js';
export type { ConsentChannel, ConsentPurpose } from './table.js';
export { CONSENT_CHANNELS, CONSENT_PURPOSES } from './table.js';
