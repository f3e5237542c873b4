/** The OpenAPI tag of every distribution queue route (routes.ts and its route groups). */
export const tags = ['Distribution'];
