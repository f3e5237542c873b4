import { useQuery } from '@tanstack/react-query';
import { client, unwrap } from '../../api';
import { wordsOf } from '../../lib/area-words';
import * as catalogue from '../../words/lead-ads';

/** The lead ads words and the shapes the page and its dialogs share (src/modules/lead-ads/schema.ts). */
export const lw = wordsOf(catalogue);
export type Key = keyof typeof catalogue.ptBR;

export interface Integration {
  documentId: string;
  name: string;
  status: 'connected' | 'expired' | 'revoked';
  statusMessage: string | null;
  providerUserId: string;
  providerUserName: string | null;
  tokenExpiresAt: string | null;
  pages: { id: string; name: string; subscribed: boolean }[];
  createdAt: string;
}
export interface LeadForm {
  id: string;
  name: string;
  status: string;
  pageId: string;
  pageName: string;
  questions: { key: string; label: string | null; type: string | null }[];
}
export type Channel = 'whatsapp' | 'email' | 'sms';
export interface Consent {
  field: string;
  channels: Channel[];
  purpose: 'marketing' | 'transactional';
  text: string;
}
export interface FormRoute {
  documentId: string;
  name: string;
  leadIntegrationDocumentId: string;
  targetBoardDocumentId: string;
  leadFormId: string;
  leadFormName: string | null;
  pageId: string;
  fieldMapping: { mappings: { source: string; target: string }[] };
  consentCapture: Consent | null;
  updatedAt: string;
}
export type DeliveryStatus = 'pending' | 'retrying' | 'succeeded' | 'failed';
export interface Delivery {
  documentId: string;
  leadgenId: string;
  status: DeliveryStatus;
  attempts: number;
  lastError: string | null;
  card: string | null;
  contact: string | null;
  receivedAt: string;
  processedAt: string | null;
}

/** Contact columns a mapping may fill (`contact.<field>`), after the card title. */
export const CONTACT_TARGETS = [
  'name',
  'email',
  'phone',
  'city',
  'state',
  'country',
  'address',
  'postal_code',
];

export function useIntegrations(enabled = true) {
  return useQuery({
    queryKey: ['lead-integrations'],
    enabled,
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/lead-integrations', {
            params: { query: { pagination: { pageSize: 100 } } as never },
          }),
        )
      ).data as unknown as Integration[],
  });
}

/** Why a lead failed, as words where the service's text says a known kind (the text itself is shown beside). */
export function leadWhy(message: string): string {
  if (/required|missing/i.test(message)) return lw('why_required');
  if (/board/i.test(message) && /not found|gone|no entry/i.test(message)) return lw('why_board');
  if (/token|expired|revoked|190/i.test(message)) return lw('why_token');
  if (/provider|HTTP|graph|\b[45]\d\d\b/i.test(message)) return lw('why_provider');
  return lw('why_other');
}
