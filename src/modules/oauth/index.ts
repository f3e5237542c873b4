/** OAuth 2.1 sign-in for remote agents (issue 32): the authorization server and its REST routes. */
export { mountAuthorizationServer } from './mount.js';
export { deleteOrganizationOauthRecords } from './organization-records.js';
export { oauthRoutes } from './routes.js';
export { createOauthServer, type OauthServer } from './server.js';
