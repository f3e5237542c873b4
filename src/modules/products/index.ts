// The products module's public face: what other modules may use (docs/decisions.md, "Modules talk through index.ts").

export type { PricedLine } from './pricing.js';
export { priceLines } from './pricing.js';
export { pricedLineFields, sourceProductRelation } from './repo.js';
export { lineInput, pricedLineShape } from './schema.js';
