import { Profile } from '../components/Profile';
import { t } from '../i18n';
import { PageHeader } from '../ui';
import { ConnectedApps } from './ConnectedApps';
import { ChangePassword } from './Passwords';
import { Members } from './settings/Members';
import { Organization } from './settings/Organization';
import { Tokens } from './settings/Tokens';

/**
 * Settings: the person's profile, API tokens and connected applications; the organization's name, time zone and
 * members.
 */
export function SettingsPage() {
  return (
    <section class="page settings" data-testid="settings">
      <PageHeader title={t('settings')} />
      <Profile />
      <ChangePassword />
      <Organization />
      <Tokens />
      <ConnectedApps />
      <Members />
    </section>
  );
}
