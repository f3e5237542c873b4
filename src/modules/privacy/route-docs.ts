/** What the privacy routes share: their OpenAPI tag and the BETA mark (LGPD is new in this stage). */
export const tags = ['Privacy (LGPD)'];
export const beta = (text: string) => `BETA: ${text}`;
export const admins = 'Organization admins and owners only.';
