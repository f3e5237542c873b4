/**
 * The reads an upgrade fixture stores (per organization, with its API token): every list, then the reads of each
 * record listed. `get` answers a path's JSON body. The upgrade test replays the stored paths, never this plan, so
 * a later build's plan may grow without touching older fixtures.
 */
export interface StoredRead {
  path: string;
  status: number;
  /** JSON answers. */
  body?: unknown;
  /** Other answers (a file): the sha256 of the bytes. */
  sha256?: string;
}

const LISTS = [
  '/organizations',
  '/users/me',
  '/users/tokens',
  '/memberships',
  '/invitations',
  '/teams',
  '/boards',
  '/contacts',
  '/segments',
  '/segments/filter-options',
  '/tasks',
  '/product-categories',
  '/products',
  '/quotes',
  '/webhook-subscriptions',
  '/saved-filters',
  '/distribution-queues',
  '/chat-channels',
  '/email-templates',
  '/pdf-templates',
  '/campaigns',
  '/conversations',
  '/inboxes',
  '/automations',
  '/conversion-pixels',
  '/notifications',
];

const ids = (list: any): string[] =>
  ((list?.data ?? []) as any[]).map((x) => x.documentId ?? x.id).filter((x) => x !== undefined);

export async function READ_PLAN(get: (path: string) => Promise<any>): Promise<string[]> {
  const paths = [...LISTS];
  const each = async (list: string, reads: (id: string) => string[]) => {
    for (const id of ids(await get(list))) paths.push(...reads(id));
  };
  await each('/boards', (b) => [
    `/boards/${b}`,
    `/boards/${b}/cards`,
    `/boards/${b}/public-form`,
    `/boards/${b}/chat-channels`,
  ]);
  for (const b of ids(await get('/boards'))) {
    for (const card of (await get(`/boards/${b}/cards`))?.data ?? []) {
      const c = card.documentId;
      paths.push(
        `/boards/${b}/cards/${c}`,
        `/boards/${b}/cards/${c}/comments`,
        `/boards/${b}/cards/${c}/products`,
      );
      for (const value of Object.values(card.fields ?? {}))
        if (Array.isArray(value))
          for (const f of value)
            if (f && typeof f === 'object' && 'documentId' in f) paths.push(`/boards/${b}/files/${f.documentId}`);
    }
  }
  await each('/contacts', (c) => [`/contacts/${c}`, `/contacts/${c}/activities`, `/contacts/${c}/conversations`]);
  await each('/segments', (s) => [`/segments/${s}`, `/segments/${s}/contacts`, `/segments/${s}/count`]);
  await each('/tasks', (t) => [`/tasks/${t}`]);
  await each('/product-categories', (x) => [`/product-categories/${x}`]);
  await each('/products', (x) => [`/products/${x}`]);
  await each('/quotes', (x) => [`/quotes/${x}`]);
  await each('/webhook-subscriptions', (x) => [`/webhook-subscriptions/${x}`, `/webhook-subscriptions/${x}/deliveries`]);
  await each('/saved-filters', (x) => [`/saved-filters/${x}`]);
  await each('/distribution-queues', (x) => [`/distribution-queues/${x}`]);
  await each('/chat-channels', (x) => [`/chat-channels/${x}`, `/chat-channels/${x}/templates`]);
  await each('/email-templates', (x) => [`/email-templates/${x}`]);
  await each('/campaigns', (x) => [`/campaigns/${x}`, `/campaigns/${x}/recipients`, `/campaigns/${x}/stats`]);
  await each('/conversations', (x) => [`/conversations/${x}`, `/conversations/${x}/messages`]);
  await each('/teams', (x) => [`/teams/${x}`, `/teams/${x}/members`]);
  return paths;
}
