/** The OpenAPI tag of every product route (routes.ts and its route groups). */
export const tags = ['Products'];
