'use strict';

const { writeFileSync } = require('node:fs');

/**
 * The bench's only addition to a stock app: at every start, a full-access API token named `bench` (the previous
 * one revoked), its key written to BENCH_TOKEN_FILE, so the bench's requests are authenticated as ours are.
 */
module.exports = {
  register() {},

  async bootstrap({ strapi }) {
    const file = process.env.BENCH_TOKEN_FILE;
    if (!file) return;
    // 'admin::api-token' is the older name of the content-API token service (deprecated since 5.x).
    const tokens = strapi.service('admin::api-token-content-api') ?? strapi.service('admin::api-token');
    const previous = await tokens.getByName('bench');
    if (previous) await tokens.revoke(previous.id);
    const token = await tokens.create({
      name: 'bench',
      description: 'bench/strapi.ts',
      type: 'full-access',
      lifespan: null,
    });
    writeFileSync(file, token.accessKey);
  },
};
