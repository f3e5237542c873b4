/** The OpenAPI tag of every e-mail template route (routes.ts and its route groups). */
export const tags = ['E-mail templates'];
