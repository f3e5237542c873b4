/** The OpenAPI tag of every saved filter route (routes.ts and its route groups). */
export const tags = ['Saved filters'];
