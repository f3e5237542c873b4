/** What the conversion pixel route groups share: their OpenAPI tag and the note every description carries. */
export const tags = ['Conversion pixels'];
export const admins = 'BETA: organization admins only (plan feature `conversions`).';
