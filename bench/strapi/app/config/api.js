// As create-strapi-app writes it (the REST defaults: 25 per page, at most 100, totals counted).
module.exports = {
  rest: {
    defaultLimit: 25,
    maxLimit: 100,
    withCount: true,
    strictParams: true,
  },
  documents: {
    strictParams: true,
    strictRelations: true,
  },
};
