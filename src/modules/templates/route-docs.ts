/** The OpenAPI tag of the message template routes (routes.ts and its route groups): under Channels. */
export const tags = ['Channels'];
