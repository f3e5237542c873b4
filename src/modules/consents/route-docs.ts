/** The OpenAPI tag of the consent routes: they are the contacts' (under /contacts/{id}). */
export const tags = ['Contacts'];
