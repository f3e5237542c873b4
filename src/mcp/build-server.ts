import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Tool, ToolEnv } from './tool-kit.js';
import { agendaTools } from './tools/agenda.js';
import { analyticsTools, boardTools, cardTools } from './tools/boards.js';
import { contactTools } from './tools/contacts.js';
import { inboxTools } from './tools/inbox.js';
import { messagingTools } from './tools/messaging.js';
import { productTools } from './tools/products.js';
import { segmentTools } from './tools/segments.js';
import { taskTools } from './tools/tasks.js';

export const SERVER_INFO = { name: 'crm', version: '1.0.0' };

const instructions = `Tools over a multi-tenant CRM (contacts, boards and cards, segments, tasks, products, agenda and meetings, message and e-mail templates, chat channels).
Identifiers: contacts, boards, cards, phases, segments, tasks, products, templates, meetings and channels are documentIds (24 lowercase letters and digits), never numeric ids. Inbox ids, conversation ids and message ids are numbers; the two kinds are not interchangeable. Find them with the list/search tools first.
Reads run at once. Every write needs a person's confirmation: either the client asks them, or the first call returns status confirmation_required with a preview and a one-time confirmationToken to pass on a second, identical call after the person agrees.
Errors come back as tool errors with the service's status, name, message and details (for 400s, details.errors names the fields to fix).`;

/** The tools of every group, in the order they are listed. */
export function allTools(): Tool[] {
  return [
    ...contactTools,
    ...boardTools,
    ...cardTools,
    ...analyticsTools,
    ...segmentTools,
    ...taskTools,
    ...productTools,
    ...messagingTools,
    ...agendaTools,
    ...inboxTools,
  ];
}

export interface BuildServerOptions {
  /** `.` serves `crm.search_contacts`; `_` serves `crm_search_contacts` as well, for clients that refuse dots. */
  separator: '.' | '_';
}

/** A fresh MCP server with every tool registered (one per stdio process or HTTP session). */
export function buildServer(env: ToolEnv, options: BuildServerOptions): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions, capabilities: { tools: {} } });
  for (const tool of allTools()) {
    const names = [`crm.${tool.name}`];
    if (options.separator === '_') names.push(`crm_${tool.name}`);
    tool.register(server, names, env);
  }
  return server;
}
