import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'preact/hooks';
import { lazyPage } from './components/LazyPage';
import { Link } from './components/Link';
import { NotFound } from './components/NotFound';
import { NotificationBell, NotificationsPanel } from './components/Notifications';
import { getLang, type Lang, setLang, t, useLang } from './i18n';
import { wordsOf } from './lib/area-words';
import { userName } from './lib/people';
import { w } from './lib/words';
import { BoardsPage } from './pages/Boards';
import { ConfirmPage } from './pages/Confirm';
import { KanbanPage } from './pages/Kanban';
import { MorePage } from './pages/More';
import { OAuthConsentPage } from './pages/OAuthConsent';
import { OrgsPage } from './pages/Orgs';
import { ForgotPasswordPage, ResetPasswordPage } from './pages/Passwords';
import { PublicFormPage } from './pages/PublicForm';
import { SignInPage, SignUpPage } from './pages/SignIn';
import { match, usePath } from './router';
import { getSession, onSession, setSession } from './session';
import { ConfirmHost, Toasts } from './ui';
import * as moreWords from './words/more';

const mw = wordsOf(moreWords);

// The daily pages past the boards (contacts, tasks, inbox, agenda, report, settings…): each its own chunk, so the first
// download is the shell, the boards and the Kanban (Chart.js comes only with the report).
const AgendaPage = lazyPage(() => import('./pages/Agenda').then((m) => m.AgendaPage));
const ContactsPage = lazyPage(() => import('./pages/Contacts').then((m) => m.ContactsPage));
const InboxPage = lazyPage(() => import('./pages/Inbox').then((m) => m.InboxPage));
const ReportPage = lazyPage(() => import('./pages/Report').then((m) => m.ReportPage));
const SegmentsPage = lazyPage(() => import('./pages/Segments').then((m) => m.SegmentsPage));
const SettingsPage = lazyPage(() => import('./pages/Settings').then((m) => m.SettingsPage));
const TasksPage = lazyPage(() => import('./pages/Tasks').then((m) => m.TasksPage));
// The marketing areas (reached from "Mais"): their own chunk, loaded when first opened.
const CampaignsPage = lazyPage(() => import('./pages/Campaigns').then((m) => m.CampaignsPage));
const CampaignDetailPage = lazyPage(() => import('./pages/CampaignDetail').then((m) => m.CampaignDetailPage));
const TemplatesPage = lazyPage(() => import('./pages/Templates').then((m) => m.TemplatesPage));
const ChannelsPage = lazyPage(() => import('./pages/Channels').then((m) => m.ChannelsPage));
const PixelsPage = lazyPage(() => import('./pages/Pixels').then((m) => m.PixelsPage));
const WebhooksPage = lazyPage(() => import('./pages/Webhooks').then((m) => m.WebhooksPage));
const AutomationsPage = lazyPage(() => import('./pages/Automations').then((m) => m.AutomationsPage));
const LeadAdsPage = lazyPage(() => import('./pages/LeadAds').then((m) => m.LeadAdsPage));
// Sales (products, quotes) and distribution queues (issue 31 item 1): their own chunks, loaded when first opened.
const ProductsPage = lazyPage(() => import('./pages/Products').then((m) => m.ProductsPage));
const QuotesPage = lazyPage(() => import('./pages/Quotes').then((m) => m.QuotesPage));
const PdfTemplatesPage = lazyPage(() => import('./pages/PdfTemplates').then((m) => m.PdfTemplatesPage));
const DistributionPage = lazyPage(() => import('./pages/Distribution').then((m) => m.DistributionPage));
// The board editor (issue 31 item 1): its own chunk, loaded when a board's structure is edited.
const BoardEditorPage = lazyPage(() => import('./pages/BoardEditor').then((m) => m.BoardEditorPage));

function LangPicker() {
  return (
    <label class="lang">
      <span class="sr-only">{t('language')}</span>
      <select value={getLang()} onChange={(e) => setLang((e.target as HTMLSelectElement).value as Lang)}>
        <option value="pt-BR">Português</option>
        <option value="en">English</option>
      </select>
    </label>
  );
}

function useSession() {
  const [s, set] = useState(getSession());
  useEffect(() => onSession(() => set(getSession())), []);
  return s;
}

export function App() {
  useLang();
  const path = usePath();
  const session = useSession();
  const qc = useQueryClient();
  useEffect(() => {
    if (!session) qc.clear();
  }, [session, qc]);

  // The public entry form needs no session.
  const form = match('/f/:boardId', path);
  if (form) return <PublicFormPage boardId={form.boardId} />;

  // The e-mailed reset link works signed in or not: it signs in with the new password.
  if (!session || path === '/reset-password') {
    return (
      <div class="auth-shell">
        <header class="auth-head">
          <strong>{t('appName')}</strong>
          <LangPicker />
        </header>
        {path === '/signup' ? (
          <SignUpPage />
        ) : path === '/forgot-password' ? (
          <ForgotPasswordPage />
        ) : path === '/reset-password' ? (
          <ResetPasswordPage />
        ) : (
          <SignInPage />
        )}
      </div>
    );
  }
  // An agent's confirmation link names its organization itself: no organization needs to be picked first.
  const confirm = match('/confirm/:id', path);
  if (confirm) return <Shell>{<ConfirmPage id={confirm.id} />}</Shell>;
  // An application's sign-in request: the person picks the organization on the page itself.
  if (path === '/oauth/consent') return <Shell>{<OAuthConsentPage />}</Shell>;
  if (!session.org || path === '/orgs') return <Shell>{<OrgsPage />}</Shell>;

  return <Shell>{route(path)}</Shell>;
}

/** The signed-in pages, by path (the Kanban of a board lives at /app/boards/{boardDocumentId}). */
const routes: [string, (p: Record<string, string>) => any][] = [
  ['/', () => <BoardsPage />],
  ['/boards', () => <BoardsPage />],
  ['/signup', () => <BoardsPage />],
  ['/boards/:boardId', (p) => <KanbanPage boardId={p.boardId} />],
  ['/boards/:boardId/cards/:cardId', (p) => <KanbanPage boardId={p.boardId} cardId={p.cardId} />],
  ['/boards/:boardId/report', (p) => <ReportPage boardId={p.boardId} />],
  ['/boards/:boardId/edit', (p) => <BoardEditorPage boardId={p.boardId} />],
  ['/contacts', () => <ContactsPage />],
  ['/contacts/:contactId', (p) => <ContactsPage contactId={p.contactId} />],
  ['/segments', () => <SegmentsPage />],
  ['/tasks', () => <TasksPage />],
  ['/inbox', () => <InboxPage />],
  ['/inbox/:conversationId', (p) => <InboxPage conversationId={p.conversationId} />],
  ['/agenda', () => <AgendaPage />],
  ['/settings', () => <SettingsPage />],
  ['/more', () => <MorePage />],
  ['/campaigns', () => <CampaignsPage />],
  ['/campaigns/:id', (p) => <CampaignDetailPage id={p.id} />],
  ['/templates', () => <TemplatesPage kind="whatsapp" />],
  ['/templates/email', () => <TemplatesPage kind="email" />],
  ['/channels', () => <ChannelsPage />],
  ['/conversion-pixels', () => <PixelsPage />],
  ['/webhooks', () => <WebhooksPage />],
  ['/products', () => <ProductsPage />],
  ['/quotes', () => <QuotesPage />],
  ['/pdf-templates', () => <PdfTemplatesPage />],
  ['/distribution', () => <DistributionPage />],
  ['/automations', () => <AutomationsPage />],
  ['/lead-ads', () => <LeadAdsPage />],
];

function route(path: string) {
  for (const [pattern, render] of routes) {
    const params = match(pattern, path);
    if (params) return render(params);
  }
  return <NotFound />;
}

function Shell({ children }: { children: any }) {
  const s = getSession()!;
  const path = usePath();
  // The navigation folds behind a "Menu" button on a narrow screen (CSS); a followed link folds it again.
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen(false), [path]);
  // The notifications' panel opens from the bell; it sits outside the header (whose links and text are white).
  const [notes, setNotes] = useState(false);
  const nav = [
    ['/boards', t('boards')],
    ['/contacts', t('contacts')],
    ['/segments', t('segments')],
    ['/tasks', t('tasks')],
    ['/inbox', t('inbox')],
    ['/agenda', t('agenda')],
    ['/more', mw('title')],
    ['/settings', t('settings')],
  ] as const;
  return (
    <div class="shell">
      <a class="skip" href="#main">
        {t('appName')}
      </a>
      <header class={`top${open ? ' open' : ''}`}>
        <strong class="brand">{t('appName')}</strong>
        {s.org && (
          <button
            type="button"
            class="nav-toggle"
            aria-expanded={open}
            aria-controls="main-nav"
            onClick={() => setOpen(!open)}
          >
            {w('menu')}
          </button>
        )}
        {s.org && (
          // A followed link folds the menu at once, in the same render as the new page.
          // biome-ignore lint/a11y/useKeyWithClickEvents: the links inside take the keyboard; this only folds the menu
          <nav aria-label={w('navMain')} id="main-nav" onClick={() => setOpen(false)}>
            {nav.map(([href, label]) => (
              <Link key={href} href={href} aria-current={path.startsWith(href) ? 'page' : undefined}>
                {label}
              </Link>
            ))}
          </nav>
        )}
        <div class="spacer" />
        {s.org && <NotificationBell onOpen={() => setNotes(true)} />}
        {s.org && (
          <Link href="/orgs" class="org">
            {s.org.name}
            <span class="org-role"> · {t(`role_${s.org.role}`)}</span>
          </Link>
        )}
        <LangPicker />
        <button type="button" class="link" onClick={() => setSession(null)}>
          {t('signOut')}
          <span class="who"> ({userName(s.user)})</span>
        </button>
      </header>
      <main id="main">{children}</main>
      {s.org && <NotificationsPanel open={notes} onClose={() => setNotes(false)} />}
      <Toasts />
      <ConfirmHost />
    </div>
  );
}
