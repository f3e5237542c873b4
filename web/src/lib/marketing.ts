import { useQuery } from '@tanstack/react-query';
import { ApiError, client, reason, unwrap } from '../api';
import { getSession } from '../session';
import { fieldMessage } from './errors';

/**
 * What the marketing pages share (campaigns, templates, channels, conversion pixels): the admin check of their
 * writes, the channel list, plural words, and a refusal split into the fields it names and one general line.
 */

/** Configuring channels, templates and pixels is for organization admins (the service decides; the page hides). */
export const isAdmin = () => ['owner', 'admin'].includes(getSession()?.org?.role ?? '');

export interface Channel {
  documentId: string;
  name: string;
  type: 'whatsapp' | 'email' | 'sms';
  settings: Record<string, unknown>;
  hasCredentials: boolean;
  boards: { documentId: string; name: string }[];
  createdAt: string;
  webhookSecret?: string;
}

/** The organization's chat channels (WhatsApp, e-mail, SMS). */
export function useChannels() {
  return useQuery({
    queryKey: ['chat-channels'],
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/chat-channels', {
            params: { query: { pagination: { pageSize: 100 }, sort: 'name:asc' } as never },
          }),
        )
      ).data as unknown as Channel[],
  });
}

export interface Refusal {
  /** Inline errors by field name (the last part of the API's error path). */
  fields: Record<string, string>;
  /** The refusal in one line when no field of the form shows it. */
  general: string;
}

/**
 * A refusal of the API for a form with the given fields: the field errors the form can show inline (in the
 * chosen language; `special` words a message the shared ones do not), else the API's reason in one line.
 */
export function refusalOf(
  err: unknown,
  fields: string[],
  special?: (message: string) => string | null,
): Refusal {
  const errors = (
    err instanceof ApiError && Array.isArray(err.details?.errors) ? err.details.errors : []
  ) as {
    path?: (string | number)[];
    message?: string;
  }[];
  const out: Record<string, string> = {};
  for (const e of errors) {
    const name = String(e.path?.at(-1) ?? '');
    if (fields.includes(name) && !out[name])
      out[name] = special?.(e.message ?? '') ?? fieldMessage(e.message);
  }
  return Object.keys(out).length ? { fields: out, general: '' } : { fields: {}, general: reason(err) };
}
