// The privacy module's public face (LGPD: a person's data exported or erased; docs/lgpd.md).
export { addressHashIn, HASH_PREFIX } from './keyed-hash.js';
export { privacyModule } from './registration.js';
export { privacyRoutes } from './routes.js';
