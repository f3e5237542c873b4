// The product-categories module's public face: what other modules may use (docs/decisions.md, "Modules talk through index.ts").
export { categoryModel } from './repo.js';
