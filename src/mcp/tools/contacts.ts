import { z } from 'zod';
import { unwrap } from '../api-client.js';
import { defined, listOutput, paging, pagingQuery, readTool, type Tool, writeTool } from '../tool-kit.js';
import { dateOnly, docId, docIdItem, membershipRef } from './common.js';

const TYPES = ['pessoa', 'empresa'] as const;

export const contact = z.object({
  documentId: z.string().describe('documentId of the contact'),
  name: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  contact_type: z.enum(TYPES).describe('pessoa (person) or empresa (company)'),
  cpf: z.string().nullable(),
  cnpj: z.string().nullable(),
  address: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().nullable(),
  country: z.string().nullable(),
  postal_code: z.string().nullable(),
  birthdate: z.string().nullable(),
  first_buy_date: z.string().nullable(),
  owner: membershipRef.nullable(),
  ownedAt: z.string().nullable(),
  team: z.object({ documentId: z.string(), name: z.string() }).nullable(),
  customFields: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
  updatedAt: z.string(),
  link: z.string().optional().describe('The contact in the web application'),
});

const contactLink = (_args: unknown, c: { documentId: string }) => `/contacts/${c.documentId}`;

const activity = z.object({
  documentId: z.string(),
  activityType: z.string().describe('e.g. note_added, call_completed, card_created, email_sent'),
  description: z.string(),
  performedAt: z.string(),
  contact: z.object({
    documentId: z.string(),
    name: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
  }),
  actor: membershipRef.nullable(),
  metadata: z.record(z.string(), z.unknown()),
});

const optionalText = (max: number, what: string) =>
  z.string().max(max).nullable().optional().describe(`${what}; null clears it`);

const fields = {
  name: z.string().min(1).max(200).describe('Full name of the person or company'),
  email: z.string().max(254).nullable().optional().describe('E-mail address; null clears it'),
  phone: optionalText(40, 'Phone, preferably E.164 such as +5511999998888'),
  contact_type: z.enum(TYPES).optional().describe('pessoa (person, default) or empresa (company)'),
  cpf: z
    .string()
    .nullable()
    .optional()
    .describe('Brazilian CPF (persons), masked or bare; unique; null clears it'),
  cnpj: z
    .string()
    .nullable()
    .optional()
    .describe('Brazilian CNPJ (companies), masked or bare; unique; null clears it'),
  address: optionalText(500, 'Street address'),
  city: optionalText(120, 'City'),
  state: optionalText(120, 'State'),
  country: optionalText(120, 'Country'),
  postal_code: optionalText(20, 'Postal code'),
  birthdate: dateOnly().nullable().optional().describe('Birth date YYYY-MM-DD; null clears it'),
  first_buy_date: dateOnly().nullable().optional().describe('Date of the first purchase YYYY-MM-DD'),
  owner: z.string().nullable().optional().describe('Membership documentId of the owner (not a user id)'),
  team: z.string().nullable().optional().describe('Team documentId'),
  customFields: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Custom fields as key → value; on update only the keys sent change and null removes a key'),
};

export const contactTools: Tool[] = [
  readTool({
    name: 'search_contacts',
    link: contactLink,
    title: 'Search contacts',
    description:
      'Finds contacts (people and companies) by free text over name, e-mail, phone, CPF and CNPJ, and/or by exact fields, paged. Use it to get a contact documentId for crm.get_contact, crm.update_contact, crm.add_contact_note or a card. Before creating a contact, search for it to avoid duplicates.',
    input: {
      query: z
        .string()
        .min(2)
        .optional()
        .describe('Free text, at least 2 characters; every word must match name, e-mail, phone, CPF or CNPJ'),
      email: z.string().optional().describe('Exact e-mail address'),
      contact_type: z.enum(TYPES).optional().describe('Only persons (pessoa) or companies (empresa)'),
      city: z.string().optional().describe('Exact city'),
      owner: z.string().optional().describe('Membership documentId of the owner'),
      ...paging,
    },
    output: listOutput(contact),
    run: async (args, { api, apiUrl }) => {
      const filters: Record<string, unknown> = {};
      if (args.email) filters.email = { $eqi: args.email };
      if (args.contact_type) filters.contact_type = { $eq: args.contact_type };
      if (args.city) filters.city = { $eqi: args.city };
      if (args.owner) filters.owner = { documentId: { $eq: args.owner } };
      const query = { ...pagingQuery(args), filters, ...(args.query ? { q: args.query } : {}) };
      return unwrap(api.GET('/api/contacts', { params: { query } }), apiUrl);
    },
  }),
  readTool({
    name: 'get_contact',
    link: contactLink,
    title: 'Get a contact',
    description:
      'Returns one contact by documentId with all fields, plus its latest timeline entries (notes, calls, cards, e-mails).',
    input: {
      contactId: docId('contact'),
      activities: z
        .number()
        .int()
        .min(0)
        .max(100)
        .optional()
        .describe('How many of the newest timeline entries to include (default 10, 0 for none)'),
    },
    output: contact.extend({ recentActivities: z.array(activity).describe('Newest timeline entries first') }),
    run: async (args, { api, apiUrl }) => {
      const path = { id: args.contactId };
      const found = await unwrap(api.GET('/api/contacts/{id}', { params: { path } }), apiUrl);
      const pageSize = args.activities ?? 10;
      const recent = pageSize
        ? await unwrap(
            api.GET('/api/contacts/{id}/activities', {
              params: { path, query: { pagination: { pageSize } } },
            }),
            apiUrl,
          )
        : { data: [] };
      return { ...found, recentActivities: recent.data };
    },
  }),
  readTool({
    name: 'get_contacts',
    link: contactLink,
    title: 'Get several contacts',
    description:
      'Returns up to 100 contacts by documentId in one call (all fields, no timeline), for example the contacts of a list of cards. Ids that do not exist or that the user cannot see are listed in missing.',
    input: {
      contactIds: z.array(docIdItem('contact')).min(1).max(100).describe('Contact documentIds, 1..100'),
    },
    output: z.object({ data: z.array(contact), missing: z.array(z.string()) }),
    run: async (args, { api, apiUrl }) => {
      const ids = [...new Set(args.contactIds)];
      const query = { pagination: { page: 1, pageSize: 100 }, filters: { documentId: { $in: ids } } };
      const page = await unwrap(api.GET('/api/contacts', { params: { query } }), apiUrl);
      const found = new Set(page.data.map((c) => c.documentId));
      return { data: page.data, missing: ids.filter((id) => !found.has(id)) };
    },
  }),
  writeTool({
    name: 'create_contact',
    link: contactLink,
    title: 'Create a contact',
    description:
      'Creates a contact (person or company). Only name is required. CPF, CNPJ are unique in the organization: a duplicate gives a 400 naming the key; search first with crm.search_contacts.',
    input: fields,
    output: contact,
    destructive: false,
    idempotent: false,
    summary: (a) => `create the contact "${a.name}"${a.email ? ` <${a.email}>` : ''}`,
    run: (args, { api, apiUrl }) =>
      unwrap(api.POST('/api/contacts', { body: { data: defined(args) as typeof args } }), apiUrl),
  }),
  writeTool({
    name: 'update_contact',
    link: contactLink,
    title: 'Update a contact',
    description:
      'Changes fields of a contact given its documentId; only the fields passed change (customFields are merged key by key).',
    input: { contactId: docId('contact'), ...fields, name: fields.name.optional() },
    output: contact,
    destructive: true,
    idempotent: true,
    summary: (a) => `update the contact ${a.contactId}`,
    run: ({ contactId, ...data }, { api, apiUrl }) =>
      unwrap(
        api.PUT('/api/contacts/{id}', { params: { path: { id: contactId } }, body: { data: defined(data) } }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'add_contact_note',
    title: 'Add a note to a contact',
    description:
      "Adds a note to a contact's timeline (activity note_added), e.g. a summary of a conversation. Takes the contact documentId.",
    input: {
      contactId: docId('contact'),
      note: z.string().min(1).max(10_000).describe('The note text'),
    },
    output: activity,
    destructive: false,
    idempotent: false,
    summary: (a) => `add a note to the contact ${a.contactId}`,
    run: (args, { api, apiUrl }) =>
      unwrap(
        api.POST('/api/contacts/{id}/notes', {
          params: { path: { id: args.contactId } },
          body: { data: { description: args.note } },
        }),
        apiUrl,
      ),
  }),
];
