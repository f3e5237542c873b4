/**
 * operationIds for the OpenAPI document, derived in one place from method + path so generated clients get
 * stable, readable function names (`listContacts`, `getContact`, `moveCard`). CRUD routes follow the rule;
 * action routes (a verb or a non-resource word in the path) and the few collections whose name repeats
 * elsewhere are named by the override map. test/platform/openapi-tools.test.ts fails on duplicates.
 */

/** `METHOD /path/{param}` (OpenAPI form, without the /api prefix) → operationId. */
const overrides: Record<string, string> = {
  'GET /health': 'getHealth',
  'POST /auth/local': 'login',
  'POST /auth/local/register': 'register',
  'POST /auth/forgot-password': 'forgotPassword',
  'POST /auth/reset-password': 'resetPassword',
  'POST /auth/change-password': 'changePassword',
  'GET /users/me': 'getCurrentUser',
  'POST /users/generate-token': 'createApiToken',
  'GET /users/tokens': 'listApiTokens',
  'GET /users/tokens/current': 'getCurrentCredential',
  'DELETE /users/tokens/{id}': 'revokeApiToken',
  'DELETE /invitations/{id}': 'revokeInvitation',
  'POST /memberships': 'inviteMember',
  'POST /invitations/{token}/accept': 'acceptInvitation',
  'POST /invitations/{token}/decline': 'declineInvitation',
  'GET /boards/{boardId}/public-form': 'getPublicForm',
  'POST /boards/{boardId}/public-form': 'submitPublicForm',
  'POST /boards/{boardId}/public-upload': 'uploadPublicFile',
  'GET /boards/{boardId}/report': 'getBoardReport',
  'GET /boards/{boardId}/files/{id}': 'downloadBoardFile',
  'GET /boards/{boardId}/cards/aggregate': 'aggregateCards',
  'POST /boards/{boardId}/cards/{id}/move': 'moveCard',
  'GET /boards/{boardId}/cards/{cardId}/products': 'listCardProducts',
  'POST /boards/{boardId}/cards/{cardId}/products': 'addCardProduct',
  'PUT /boards/{boardId}/cards/{cardId}/products/{id}': 'updateCardProduct',
  'DELETE /boards/{boardId}/cards/{cardId}/products/{id}': 'removeCardProduct',
  'GET /boards/{boardId}/cards/{cardId}/comments': 'listCardComments',
  'POST /boards/{boardId}/cards/{cardId}/comments': 'createCardComment',
  'PUT /boards/{boardId}/cards/{cardId}/comments/{id}': 'updateCardComment',
  'DELETE /boards/{boardId}/cards/{cardId}/comments/{id}': 'deleteCardComment',
  'GET /quotes/{id}/pdf': 'getQuotePdf',
  'POST /pdf-templates/{id}/preview': 'previewPdfTemplate',
  'PUT /tasks/{id}/status': 'setTaskStatus',
  'POST /notifications/{id}/read': 'markNotificationRead',
  'POST /notifications/read': 'markAllNotificationsRead',
  'POST /agent-confirmations': 'requestAgentConfirmation',
  'POST /agent-confirmations/{id}/approve': 'approveAgentConfirmation',
  'POST /agent-confirmations/{id}/decline': 'declineAgentConfirmation',
  'POST /agent-confirmations/{id}/redeem': 'redeemAgentConfirmation',
  'GET /segments/filter-options': 'getSegmentFilterOptions',
  'POST /segments/preview': 'previewSegment',
  'GET /segments/{id}/count': 'countSegmentContacts',
  'GET /segments/{id}/contacts': 'listSegmentContacts',
  'GET /contacts/{id}/activities': 'listContactActivities',
  'POST /contacts/{id}/activities': 'logContactCall',
  'POST /contacts/{id}/notes': 'addContactNote',
  'POST /contacts/bulk-delete': 'bulkDeleteContacts',
  'POST /contacts/bulk-update': 'bulkUpdateContacts',
  'POST /contacts/merge': 'mergeContacts',
  'POST /contacts/import': 'importContacts',
  'GET /teams/{id}/members': 'listTeamMembers',
  'POST /teams/{id}/members': 'addTeamMember',
  'GET /teams/{id}/members/{membershipId}': 'getTeamMember',
  'GET /agenda/events': 'listAgendaEvents',
  'POST /boards/{boardId}/cards/{cardId}/calendar-meetings/availability': 'findMeetingSlots',
  'GET /boards/{boardId}/cards/{cardId}/calendar-meetings': 'listCardMeetings',
  'POST /boards/{boardId}/cards/{cardId}/calendar-meetings': 'scheduleCardMeeting',
  'DELETE /calendar-meetings/{id}': 'cancelCalendarMeeting',
  'DELETE /teams/{id}/members/{membershipId}': 'removeTeamMember',
  'GET /chat-channels/{id}/health': 'getChatChannelHealth',
  'GET /boards/{boardId}/chat-channels': 'listBoardChatChannels',
  'PUT /boards/{boardId}/chat-channels': 'setBoardChatChannels',
  'GET /chat-channels/{channelId}/templates': 'listChannelTemplates',
  'POST /chat-channels/{channelId}/templates': 'createWhatsappTemplate',
  'DELETE /chat-channels/{channelId}/templates/{id}': 'deleteWhatsappTemplate',
  'POST /chat-channels/{channelId}/templates/sync': 'syncWhatsappTemplates',
  'POST /chat-channels/{channelId}/templates/media-handle': 'uploadWhatsappTemplateMediaHandle',
  'POST /email-templates/{id}/preview': 'previewEmailTemplate',
  'POST /email-templates/{id}/test-send': 'sendTestEmail',
  'GET /email-assets/{id}/{filename}': 'downloadEmailAsset',
  'POST /campaigns/{id}/trigger': 'triggerCampaign',
  'POST /campaigns/{id}/pause': 'pauseCampaign',
  'POST /campaigns/{id}/resume': 'resumeCampaign',
  'POST /campaigns/{id}/cancel': 'cancelCampaign',
  'GET /campaigns/{id}/stats': 'getCampaignStats',
  'GET /campaigns/{id}/recipients': 'listCampaignRecipients',
  'GET /track/open/{token}': 'trackEmailOpen',
  'GET /track/click/{token}': 'trackEmailClick',
  'GET /unsubscribe/{token}': 'getUnsubscribePage',
  'POST /unsubscribe/{token}': 'unsubscribe',
  'POST /webhooks/email-events/{channelId}': 'receiveEmailEvents',
  'GET /inboxes': 'listChatInboxes',
  'GET /inboxes/{id}': 'getChatInbox',
  'GET /inboxes/{id}/boards': 'listInboxBoardLinks',
  'POST /conversations': 'startConversation',
  'GET /conversations/meta': 'getConversationsMeta',
  'GET /conversations/unread-counts': 'getConversationUnreadCounts',
  'GET /conversations/events': 'streamConversationEvents',
  'PATCH /conversations/{id}': 'updateConversationStatus',
  'POST /conversations/{id}/seen': 'markConversationSeen',
  'POST /conversations/{id}/unread': 'markConversationUnread',
  'GET /conversations/{id}/messages': 'listConversationMessages',
  'POST /conversations/{id}/messages': 'sendConversationMessage',
  'POST /conversations/{id}/attachments': 'sendConversationAttachment',
  'GET /conversations/{id}/messages/{messageId}/media': 'downloadConversationMedia',
  'GET /conversations/{id}/card': 'getConversationCard',
  'POST /conversations/{id}/card': 'createCardFromConversation',
  'POST /conversations/{id}/card/link': 'linkConversationToCard',
  'POST /conversations/{id}/card/switch': 'switchConversationCard',
  'GET /contacts/{contactId}/conversations': 'listContactConversations',
  'GET /contacts/{contactId}/conversation-cards': 'listContactConversationCards',
  'POST /contacts/{contactId}/chat-sync': 'syncContactToChat',
  'GET /boards/{boardId}/chat-cards': 'listChatCards',
  'GET /chat-contacts': 'searchChatContacts',
  'GET /webhooks/whatsapp/{channelId}': 'verifyWhatsappWebhook',
  'POST /webhooks/whatsapp/{channelId}': 'receiveWhatsappWebhook',
  'POST /lead-ads/oauth/start': 'startLeadAdsOauth',
  'POST /lead-ads/oauth/complete': 'completeLeadAdsOauth',
  'GET /lead-integrations/{id}/forms': 'listLeadIntegrationForms',
  'GET /lead-form-routes/{id}/deliveries': 'listLeadFormRouteDeliveries',
  'POST /lead-form-routes/{id}/deliveries/{deliveryId}/redeliver': 'redeliverLead',
  'GET /webhooks/lead-ads': 'verifyLeadAdsWebhook',
  'POST /webhooks/lead-ads': 'receiveLeadAdsWebhook',
};

const verbs: Record<string, { item: string; collection: string }> = {
  GET: { item: 'get', collection: 'list' },
  POST: { item: 'create', collection: 'create' },
  PUT: { item: 'update', collection: 'update' },
  PATCH: { item: 'update', collection: 'update' },
  DELETE: { item: 'delete', collection: 'delete' },
};

const isParam = (segment: string) => segment.startsWith('{') || segment.startsWith(':');

/** `pdf-templates` → `PdfTemplates`. */
const pascal = (word: string) =>
  word
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');

/** English plural → singular, enough for the resource names of this API. */
const singular = (word: string) =>
  word.endsWith('ies') ? `${word.slice(0, -3)}y` : word.endsWith('s') ? word.slice(0, -1) : word;

/**
 * The operationId of a route: overrides first; else `<verb><Resource>` where the resource is the last
 * static segment, singular for items and creates (`getContact`, `createContact`), plural for lists.
 */
export function operationIdFor(method: string, url: string): string {
  const path = url.replace(/^\/api(?=\/|$)/, '').replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  const key = `${method.toUpperCase()} ${path}`;
  const override = overrides[key];
  if (override) return override;
  const segments = path.split('/').filter(Boolean);
  const verb = verbs[method.toUpperCase()];
  const last = segments.at(-1);
  const resource = last && isParam(last) ? segments.at(-2) : last;
  const before = last && isParam(last) ? segments.at(-3) : segments.at(-2);
  // An action (`/contacts/merge`: a static word after a static word) deserves a chosen name in the map; until
  // then it gets a unique, if clumsy, one from the method and every static word (`postContactsMerge`).
  if (!verb || !last || !resource || isParam(resource) || (before && !isParam(before) && !isParam(last)))
    return `${method.toLowerCase()}${segments
      .filter((s) => !isParam(s))
      .map(pascal)
      .join('')}`;
  if (isParam(last)) return `${verb.item}${pascal(singular(resource))}`;
  const name = method.toUpperCase() === 'GET' ? pascal(last) : pascal(singular(last));
  return `${verb.collection}${name}`;
}
