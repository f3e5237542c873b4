/** The OpenAPI tag of every campaign route (routes.ts, public-routes.ts and their route groups). */
export const tags = ['Campaigns'];
