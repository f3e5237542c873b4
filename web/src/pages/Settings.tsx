import { Profile } from '../components/Profile';
import { t } from '../i18n';
import { PageHeader } from '../ui';
import { ConnectedApps } from './ConnectedApps';
import { Members } from './settings/Members';
import { Tokens } from './settings/Tokens';

/** Settings: the person's profile, API tokens and connected applications; the organization's members. */
export function SettingsPage() {
  return (
    <section class="page settings" data-testid="settings">
      <PageHeader title={t('settings')} />
      <Profile />
      <Tokens />
      <ConnectedApps />
      <Members />
    </section>
  );
}
