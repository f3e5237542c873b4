import type { paths } from '../../generated/api-types.js';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A REST operation of the service as `METHOD /api/path/{param}` (OpenAPI form), checked against its paths. */
export type Route = `${Method} ${keyof paths & string}`;

/**
 * The service operations each tool needs to do its work (by tool name without the `crm.` prefix). The scopes a
 * tool needs are not written here: they are those the service's OpenAPI document declares for these operations
 * (`x-required-scopes`), see tool-access.ts. Lookups a tool can do without (the board's name in a write's summary)
 * and the confirmation requests (docs/mcp.md) are not listed. test/mcp/tool-access.test.ts checks this list
 * against the tools' sources.
 */
export const TOOL_ROUTES: Record<string, readonly Route[]> = {
  // contacts
  search_contacts: ['GET /api/contacts'],
  get_contact: ['GET /api/contacts/{id}', 'GET /api/contacts/{id}/activities'],
  get_contacts: ['GET /api/contacts'],
  create_contact: ['POST /api/contacts'],
  update_contact: ['PUT /api/contacts/{id}'],
  add_contact_note: ['POST /api/contacts/{id}/notes'],
  // boards
  list_boards: ['GET /api/boards'],
  get_board_structure: ['GET /api/boards/{id}'],
  list_templates: ['GET /api/board-templates'],
  get_template: ['GET /api/board-templates/{id}'],
  search_cards: ['GET /api/boards/{id}', 'GET /api/boards/{boardId}/cards'],
  get_cards: ['GET /api/boards/{boardId}/cards'],
  create_card: ['POST /api/boards/{boardId}/cards'],
  update_card: ['PUT /api/boards/{boardId}/cards/{id}'],
  move_card_phase: ['POST /api/boards/{boardId}/cards/{id}/move'],
  get_board_report: ['GET /api/boards/{boardId}/report'],
  aggregate_card_field: ['GET /api/boards/{boardId}/cards/aggregate'],
  // segments
  list_segments: ['GET /api/segments'],
  get_segment: ['GET /api/segments/{id}'],
  get_segment_filter_options: ['GET /api/segments/filter-options'],
  preview_segment: ['POST /api/segments/preview'],
  create_segment: ['POST /api/segments'],
  update_segment: ['PUT /api/segments/{id}'],
  delete_segment: ['DELETE /api/segments/{id}'],
  resolve_segment: ['GET /api/segments/{id}/contacts'],
  count_segment: ['GET /api/segments/{id}/count'],
  // tasks
  list_tasks: ['GET /api/tasks'],
  create_task: ['POST /api/tasks'],
  update_task: ['PUT /api/tasks/{id}'],
  update_task_status: ['PUT /api/tasks/{id}/status'],
  // products
  list_products: ['GET /api/products'],
  get_product: ['GET /api/products/{id}'],
  create_product: ['POST /api/products'],
  update_product: ['PUT /api/products/{id}'],
  delete_product: ['DELETE /api/products/{id}'],
  list_product_categories: ['GET /api/product-categories'],
  get_product_category: ['GET /api/product-categories/{id}'],
  create_product_category: ['POST /api/product-categories'],
  update_product_category: ['PUT /api/product-categories/{id}'],
  delete_product_category: ['DELETE /api/product-categories/{id}'],
  // messaging
  list_whatsapp_templates: ['GET /api/chat-channels/{channelId}/templates'],
  list_channel_templates: ['GET /api/chat-channels/{channelId}/templates'],
  create_whatsapp_template: ['POST /api/chat-channels/{channelId}/templates'],
  upload_whatsapp_template_media_handle: ['POST /api/chat-channels/{channelId}/templates/media-handle'],
  sync_whatsapp_templates: ['POST /api/chat-channels/{channelId}/templates/sync'],
  delete_whatsapp_template: ['DELETE /api/chat-channels/{channelId}/templates/{id}'],
  list_email_templates: ['GET /api/email-templates'],
  get_email_template: ['GET /api/email-templates/{id}'],
  create_email_template: ['POST /api/email-templates'],
  update_email_template: ['PUT /api/email-templates/{id}'],
  delete_email_template: ['DELETE /api/email-templates/{id}'],
  preview_email_template: ['POST /api/email-templates/{id}/preview'],
  send_test_email: ['POST /api/email-templates/{id}/test-send'],
  list_chat_channels: ['GET /api/chat-channels'],
  get_chat_channel_health: ['GET /api/chat-channels/{id}/health'],
  list_board_chat_channels: ['GET /api/boards/{boardId}/chat-channels'],
  // agenda
  list_agenda_events: ['GET /api/agenda/events'],
  list_card_meetings: ['GET /api/boards/{boardId}/cards/{cardId}/calendar-meetings'],
  find_meeting_slots: ['POST /api/boards/{boardId}/cards/{cardId}/calendar-meetings/availability'],
  schedule_card_meeting: ['POST /api/boards/{boardId}/cards/{cardId}/calendar-meetings'],
  update_card_meeting: ['PATCH /api/calendar-meetings/{id}'],
  cancel_card_meeting: ['DELETE /api/calendar-meetings/{id}'],
  // inbox
  list_chat_inboxes: ['GET /api/inboxes'],
  get_chat_inbox: ['GET /api/inboxes/{id}'],
  list_inbox_board_links: ['GET /api/inboxes/{id}/boards'],
  list_conversations: ['GET /api/conversations'],
  get_conversation: ['GET /api/conversations/{id}'],
  get_conversations_meta: ['GET /api/conversations/meta'],
  list_contact_conversations: ['GET /api/contacts/{contactId}/conversations'],
  get_conversation_unread_counts: ['GET /api/conversations/unread-counts'],
  list_conversation_messages: ['GET /api/conversations/{id}/messages'],
  get_conversation_card: ['GET /api/conversations/{id}/card'],
  list_contact_conversation_cards: ['GET /api/contacts/{contactId}/conversation-cards'],
  list_chat_cards: ['GET /api/boards/{boardId}/chat-cards'],
  search_chat_contacts: ['GET /api/chat-contacts'],
  send_conversation_message: ['POST /api/conversations/{id}/messages'],
  send_conversation_attachment: ['POST /api/conversations/{id}/attachments'],
  start_conversation: ['POST /api/conversations'],
  update_conversation_status: ['PATCH /api/conversations/{id}'],
  mark_conversation_seen: ['POST /api/conversations/{id}/seen'],
  mark_conversation_unread: ['POST /api/conversations/{id}/unread'],
  create_card_from_conversation: ['POST /api/conversations/{id}/card'],
  link_conversation_to_card: ['POST /api/conversations/{id}/card/link'],
  switch_conversation_card: ['POST /api/conversations/{id}/card/switch'],
  sync_contact_to_chat: ['POST /api/contacts/{contactId}/chat-sync'],
};
