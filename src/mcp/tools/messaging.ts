import { z } from 'zod';
import { unwrap } from '../api-client.js';
import { defined, listOutput, paging, pagingQuery, readTool, type Tool, writeTool } from '../tool-kit.js';
import { beta, deletedOutput, docId } from './common.js';

/**
 * Message templates (WhatsApp), e-mail templates and channels (spec tool groups "Message templates", "Email
 * templates", "Channels"). Every write is confirmed by a person (tool rule 5): submitting or deleting provider
 * templates and sending e-mail reach the outside world. E-mail tools need the campaigns feature (rule 7): the
 * service answers 403 naming it.
 */

const whatsappTemplate = z
  .object({
    documentId: z.string().describe('documentId of the template'),
    name: z.string().describe('Template name at the provider'),
    language: z.string(),
    category: z.string().describe('MARKETING, UTILITY or AUTHENTICATION'),
    status: z
      .string()
      .describe('APPROVED, PENDING, REJECTED, PAUSED or DISABLED; only APPROVED ones can be sent'),
    components: z.array(z.record(z.string(), z.unknown())),
    externalId: z.string().nullable().describe('Id at the provider'),
    syncedAt: z.string().nullable(),
  })
  .loose();

const emailTemplate = z
  .object({
    documentId: z.string().describe('documentId of the e-mail template'),
    name: z.string(),
    subject: z.string(),
    html: z.string(),
    text: z.string().nullable(),
    variables: z.array(z.string()).describe('Variables the template uses'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .loose();

const channel = z
  .object({
    documentId: z.string().describe('documentId of the channel'),
    name: z.string(),
    type: z.enum(['whatsapp', 'email', 'sms']),
    settings: z.record(z.string(), z.unknown()),
    hasCredentials: z.boolean().describe('Credentials are write-only and never shown'),
    boards: z.array(z.object({ documentId: z.string(), name: z.string() })),
  })
  .loose();

const channelId = docId('chat channel (see crm.list_chat_channels)');
const templateVariables =
  'Variables: {{contact.name}}, {{contact.email}}, {{contact.phone}}, {{organization.name}}, {{unsubscribeUrl}}, {{contact.customFields.KEY}}, {{variables.KEY}}; any other is refused.';

const componentsField = z
  .array(
    z
      .object({ type: z.enum(['HEADER', 'BODY', 'FOOTER', 'BUTTONS']).describe('Component type') })
      .loose()
      .describe(
        'A WhatsApp Cloud API template component, e.g. { type: "BODY", text: "Hi {{1}}", example: { body_text: [["Ana"]] } }',
      ),
  )
  .min(1)
  .describe('Template components as the Cloud API takes them; a BODY is required');

const templateTools: Tool[] = [
  readTool({
    name: 'list_whatsapp_templates',
    title: 'List WhatsApp templates',
    description:
      'Lists the WhatsApp message templates of a WhatsApp channel as last synced (name, language, category, status, components). Only APPROVED templates can be sent; run crm.sync_whatsapp_templates to refresh statuses from the provider.',
    input: {
      channelId,
      status: z
        .enum(['APPROVED', 'PENDING', 'REJECTED', 'PAUSED', 'DISABLED'])
        .optional()
        .describe('Only templates with this status'),
      ...paging,
    },
    output: listOutput(whatsappTemplate),
    run: (args, { api, apiUrl }) =>
      unwrap(
        api.GET('/api/chat-channels/{channelId}/templates', {
          params: {
            path: { channelId: args.channelId },
            query: {
              ...pagingQuery(args),
              ...(args.status ? { filters: { status: { $eq: args.status } } } : {}),
            },
          },
        }),
        apiUrl,
      ),
  }),
  readTool({
    name: 'list_channel_templates',
    title: "List a channel's templates",
    description:
      'Lists the message templates of any chat channel (WhatsApp channels have templates; e-mail and SMS channels answer an empty list: use crm.list_email_templates for e-mail).',
    input: { channelId, ...paging },
    output: listOutput(whatsappTemplate),
    run: (args, { api, apiUrl }) =>
      unwrap(
        api.GET('/api/chat-channels/{channelId}/templates', {
          params: { path: { channelId: args.channelId }, query: pagingQuery(args) },
        }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'create_whatsapp_template',
    openWorld: true,
    title: 'Submit a WhatsApp template',
    description:
      'Submits a new message template to WhatsApp for review (a real external side effect) and stores it as PENDING. Needs the admin role. A provider refusal comes back as a 502 error with its message.',
    input: {
      channelId,
      name: z
        .string()
        .regex(/^[a-z0-9_]{1,512}$/)
        .describe('Lowercase letters, digits and underscores'),
      language: z.string().describe('Language code, e.g. pt_BR or en_US'),
      category: z
        .enum(['MARKETING', 'UTILITY', 'AUTHENTICATION'])
        .describe('Template category at the provider'),
      components: componentsField,
    },
    output: whatsappTemplate,
    destructive: false,
    idempotent: false,
    summary: (a) =>
      `submit the WhatsApp template "${a.name}" (${a.language}, ${a.category}) to the provider for review`,
    run: ({ channelId: id, ...data }, { api, apiUrl }) =>
      unwrap(
        api.POST('/api/chat-channels/{channelId}/templates', {
          params: { path: { channelId: id } },
          body: { data: data as never },
        }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'upload_whatsapp_template_media_handle',
    openWorld: true,
    title: 'Upload template header media',
    description:
      'Uploads a sample image, video or PDF to the provider (resumable upload) and returns its media handle, to use as header_handle in a HEADER component example of crm.create_whatsapp_template. Needs the admin role and the channel setting appId.',
    input: {
      channelId,
      filename: z.string().min(1).max(255).describe('File name, e.g. banner.png'),
      mimeType: z
        .enum(['image/jpeg', 'image/png', 'video/mp4', 'application/pdf'])
        .describe('Type of the file'),
      base64: z.string().min(1).describe('The file, base64 encoded (images ≤ 5 MB, video and PDF ≤ 16 MB)'),
    },
    output: z.object({ handle: z.string().describe('Media handle for the template example') }),
    destructive: false,
    idempotent: false,
    summary: (a) => `upload "${a.filename}" (${a.mimeType}) to WhatsApp as template media`,
    run: ({ channelId: id, ...body }, { api, apiUrl }) =>
      unwrap(
        api.POST('/api/chat-channels/{channelId}/templates/media-handle', {
          params: { path: { channelId: id } },
          body,
        }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'sync_whatsapp_templates',
    openWorld: true,
    title: 'Sync WhatsApp templates',
    description:
      "Pulls the provider's template list into the channel: new templates are added, statuses refreshed, templates deleted at the provider removed. Needs the admin role.",
    input: { channelId },
    output: z.object({
      data: z.array(whatsappTemplate),
      meta: z.object({ created: z.number(), updated: z.number(), deleted: z.number() }),
    }),
    destructive: true,
    idempotent: true,
    summary: (a) => `sync the WhatsApp templates of channel ${a.channelId} from the provider`,
    run: (args, { api, apiUrl }) =>
      unwrap(
        api.POST('/api/chat-channels/{channelId}/templates/sync', {
          params: { path: { channelId: args.channelId } },
        }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'delete_whatsapp_template',
    openWorld: true,
    title: 'Delete a WhatsApp template',
    description:
      'Deletes a template here and at the provider (a real external side effect; the provider deletes every language of that name). Needs the admin role.',
    input: { channelId, templateId: docId('WhatsApp template (see crm.list_whatsapp_templates)') },
    output: deletedOutput,
    destructive: true,
    idempotent: true,
    summary: (a) => `delete the WhatsApp template ${a.templateId} here and at the provider`,
    run: (args, { api, apiUrl }) =>
      unwrap(
        api.DELETE('/api/chat-channels/{channelId}/templates/{id}', {
          params: { path: { channelId: args.channelId, id: args.templateId } },
        }),
        apiUrl,
      ),
  }),
];

const emailTemplateId = docId('e-mail template (see crm.list_email_templates)');

const emailTools: Tool[] = [
  readTool({
    name: 'list_email_templates',
    title: 'List e-mail templates',
    description:
      'Lists e-mail templates (name, subject, HTML, the variables used), paged. Needs the campaigns feature.',
    input: {
      search: z.string().optional().describe('Text contained in the name (case-insensitive)'),
      ...paging,
    },
    output: listOutput(emailTemplate),
    run: (args, { api, apiUrl }) =>
      unwrap(
        api.GET('/api/email-templates', {
          params: {
            query: {
              ...pagingQuery(args),
              ...(args.search ? { filters: { name: { $containsi: args.search } } } : {}),
            },
          },
        }),
        apiUrl,
      ),
  }),
  readTool({
    name: 'get_email_template',
    title: 'Get an e-mail template',
    description: 'Returns one e-mail template by documentId. Needs the campaigns feature.',
    input: { templateId: emailTemplateId },
    output: emailTemplate,
    run: (args, { api, apiUrl }) =>
      unwrap(api.GET('/api/email-templates/{id}', { params: { path: { id: args.templateId } } }), apiUrl),
  }),
  writeTool({
    name: 'create_email_template',
    title: 'Create an e-mail template',
    description: `Creates an e-mail template (name unique). ${templateVariables} Needs the admin role and the campaigns feature.`,
    input: {
      name: z.string().min(1).max(120).describe('Template name, unique in the organization'),
      subject: z.string().min(1).max(255).describe('Subject; may use variables'),
      html: z.string().min(1).describe('HTML body; include {{unsubscribeUrl}} for marketing mail'),
      text: z.string().optional().describe('Plain-text part; derived from the HTML when omitted'),
    },
    output: emailTemplate,
    destructive: false,
    idempotent: false,
    summary: (a) => `create the e-mail template "${a.name}"`,
    run: (args, { api, apiUrl }) =>
      unwrap(api.POST('/api/email-templates', { body: { data: defined(args) as never } }), apiUrl),
  }),
  writeTool({
    name: 'update_email_template',
    title: 'Update an e-mail template',
    description: `Changes fields of an e-mail template; only those passed change. ${templateVariables} Needs the admin role.`,
    input: {
      templateId: emailTemplateId,
      name: z.string().min(1).max(120).optional().describe('New name'),
      subject: z.string().min(1).max(255).optional().describe('New subject; may use variables'),
      html: z.string().min(1).optional().describe('New HTML body'),
      text: z.string().nullable().optional().describe('null removes the plain-text part'),
    },
    output: emailTemplate,
    destructive: true,
    idempotent: true,
    summary: (a) => `update the e-mail template ${a.templateId}`,
    run: ({ templateId, ...data }, { api, apiUrl }) =>
      unwrap(
        api.PUT('/api/email-templates/{id}', {
          params: { path: { id: templateId } },
          body: { data: defined(data) as never },
        }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'delete_email_template',
    title: 'Delete an e-mail template',
    description:
      'Deletes an e-mail template permanently (refused while a campaign uses it). Needs the admin role.',
    input: { templateId: emailTemplateId },
    output: deletedOutput,
    destructive: true,
    idempotent: true,
    summary: (a) => `permanently delete the e-mail template ${a.templateId}`,
    run: (args, { api, apiUrl }) =>
      unwrap(api.DELETE('/api/email-templates/{id}', { params: { path: { id: args.templateId } } }), apiUrl),
  }),
  readTool({
    name: 'preview_email_template',
    title: 'Preview an e-mail template',
    description:
      'Renders subject, HTML and text of an e-mail template for a contact (or a sample contact). Sends nothing. Needs the campaigns feature.',
    input: {
      templateId: emailTemplateId,
      contactId: docId('contact whose data fills the variables').optional(),
      variables: z.record(z.string(), z.unknown()).optional().describe('Values of {{variables.KEY}}'),
    },
    output: z.object({ subject: z.string(), html: z.string(), text: z.string() }),
    run: (args, { api, apiUrl }) =>
      unwrap(
        api.POST('/api/email-templates/{id}/preview', {
          params: { path: { id: args.templateId } },
          body: defined({ contact: args.contactId, variables: args.variables }),
        }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'send_test_email',
    openWorld: true,
    title: 'Send a test e-mail',
    description:
      'Sends one real test message of an e-mail template to one address (subject prefixed [TEST]); the suppression list is ignored. Rate-limited. Needs the admin role and the campaigns feature.',
    input: {
      templateId: emailTemplateId,
      to: z.email().describe('The one recipient'),
      channelId: docId('e-mail channel to send through (its sender); default: the service mail').optional(),
      contactId: docId('contact whose data fills the variables').optional(),
    },
    output: z.object({ messageId: z.string(), to: z.string(), subject: z.string() }),
    destructive: false,
    idempotent: false,
    summary: (a) => `send a real test e-mail of template ${a.templateId} to ${a.to}`,
    run: (args, { api, apiUrl }) =>
      unwrap(
        api.POST('/api/email-templates/{id}/test-send', {
          params: { path: { id: args.templateId } },
          body: defined({ to: args.to, channel: args.channelId, contact: args.contactId }) as never,
        }),
        apiUrl,
      ),
  }),
];

const channelTools: Tool[] = [
  readTool({
    name: 'list_chat_channels',
    title: 'List chat channels',
    description:
      'Lists the WhatsApp, e-mail and SMS channels of the organization (settings, whether credentials are set, linked boards). Credentials are never shown.',
    input: {
      type: z.enum(['whatsapp', 'email', 'sms']).optional().describe('Only channels of this type'),
      ...paging,
    },
    output: listOutput(channel),
    run: (args, { api, apiUrl }) =>
      unwrap(
        api.GET('/api/chat-channels', {
          params: {
            query: { ...pagingQuery(args), ...(args.type ? { filters: { type: { $eq: args.type } } } : {}) },
          },
        }),
        apiUrl,
      ),
  }),
  readTool({
    name: 'get_chat_channel_health',
    openWorld: true,
    title: 'Check a chat channel',
    description:
      'Checks a channel against its provider with a real call (WhatsApp number, SMS account, SMTP greeting): status ok or error, latency and message.',
    input: { channelId },
    output: z.object({
      status: z.enum(['ok', 'error']),
      checkedAt: z.string(),
      latencyMs: z.number(),
      message: z.string(),
    }),
    run: (args, { api, apiUrl }) =>
      unwrap(api.GET('/api/chat-channels/{id}/health', { params: { path: { id: args.channelId } } }), apiUrl),
  }),
  readTool({
    name: 'list_board_chat_channels',
    title: "List a board's chat channels",
    description: 'Lists the chat channels linked to a board.',
    input: { boardId: docId('board (see crm.list_boards)') },
    output: z.object({ data: z.array(channel) }),
    run: (args, { api, apiUrl }) =>
      unwrap(
        api.GET('/api/boards/{boardId}/chat-channels', { params: { path: { boardId: args.boardId } } }),
        apiUrl,
      ),
  }),
];

/** Channels, their templates and e-mail templates are BETA areas (spec, Versioning 2). */
export const messagingTools: Tool[] = beta([...templateTools, ...emailTools, ...channelTools]);
