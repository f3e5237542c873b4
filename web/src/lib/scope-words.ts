import { getLang } from '../i18n';

/** The service's closed scope catalogue (src/platform/auth/scopes.ts) as words a person reads on the consent page. */
const AREAS: Record<string, { 'pt-BR': string; en: string }> = {
  account: {
    'pt-BR': 'sua conta: perfil, tokens e organizações',
    en: 'your account: profile, tokens and organizations',
  },
  members: {
    'pt-BR': 'membros e convites da organização',
    en: 'members and invitations of the organization',
  },
  teams: { 'pt-BR': 'equipes', en: 'teams' },
  boards: {
    'pt-BR': 'quadros e sua estrutura (fases, campos, etiquetas)',
    en: 'boards and their structure (phases, fields, tags)',
  },
  cards: { 'pt-BR': 'cards, comentários, movimentações e arquivos', en: 'cards, comments, moves and files' },
  contacts: { 'pt-BR': 'contatos e seu histórico', en: 'contacts and their timeline' },
  segments: { 'pt-BR': 'segmentos', en: 'segments' },
  tasks: { 'pt-BR': 'tarefas', en: 'tasks' },
  products: { 'pt-BR': 'produtos e categorias', en: 'products and categories' },
  quotes: { 'pt-BR': 'orçamentos e seus PDFs', en: 'quotes and their PDFs' },
  notifications: { 'pt-BR': 'suas notificações', en: 'your notifications' },
  channels: {
    'pt-BR': 'canais de conversa (WhatsApp, e-mail, SMS)',
    en: 'chat channels (WhatsApp, e-mail, SMS)',
  },
  email_templates: { 'pt-BR': 'modelos de e-mail', en: 'e-mail templates' },
  campaigns: { 'pt-BR': 'campanhas e seus envios', en: 'campaigns and their sends' },
  chat: { 'pt-BR': 'caixa de entrada: conversas e mensagens', en: 'the inbox: conversations and messages' },
  agenda: { 'pt-BR': 'agenda e reuniões', en: 'the agenda and meetings' },
  lead_ads: { 'pt-BR': 'integrações de anúncios de leads', en: 'lead ads integrations' },
  automations: { 'pt-BR': 'automações', en: 'automations' },
  webhooks: { 'pt-BR': 'webhooks', en: 'webhooks' },
  distribution: { 'pt-BR': 'filas de distribuição', en: 'distribution queues' },
  saved_filters: { 'pt-BR': 'filtros salvos', en: 'saved filters' },
  conversions: { 'pt-BR': 'pixels de conversão', en: 'conversion pixels' },
};

const ACCESS = {
  read: { 'pt-BR': 'Ver', en: 'See' },
  write: { 'pt-BR': 'Ver e alterar', en: 'See and change' },
} as const;

/** `contacts:write` → "Ver e alterar contatos e seu histórico" (pt-BR) / "See and change contacts and …" (en). */
export function scopeWords(scope: string): string {
  const lang = getLang();
  const [area, access] = scope.split(':');
  const what = AREAS[area]?.[lang];
  const verb = ACCESS[access as 'read' | 'write']?.[lang];
  return what && verb ? `${verb} ${what}` : scope;
}

/** The scopes a person reads: `write` of an area stands for its `read` too, so only the wider one is shown. */
export function scopeList(scopes: string[]): string[] {
  return scopes.filter((s) => !(s.endsWith(':read') && scopes.includes(s.replace(/:read$/, ':write'))));
}
