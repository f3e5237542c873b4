import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, reason, unwrap } from '../api';
import { t } from '../i18n';
import { userName } from '../lib/people';
import { getSession, setSession } from '../session';
import { Avatar, Button, Field } from '../ui';

/**
 * The signed-in person's profile (PUT /api/users/me): the display name shown instead of the username, and whether a
 * mention in a comment is also e-mailed (the bell shows it anyway).
 */
export function Profile() {
  const qc = useQueryClient();
  const me = useQuery({ queryKey: ['me'], queryFn: () => unwrap(client.GET('/api/users/me')) });
  // What the person typed; null until they type (the field shows the saved name, once loaded, without ever
  // replacing what was typed before it arrived).
  const [typed, setName] = useState<string | null>(null);
  const name = typed ?? me.data?.name ?? getSession()?.user.name ?? '';
  // The box's state once the person ticks it; until then the saved choice (on while it loads: the default).
  const [ticked, setMentionEmails] = useState<boolean | null>(null);
  const mentionEmails = ticked ?? me.data?.mentionEmails ?? true;
  const [status, setStatus] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);

  const save = async (e: Event) => {
    e.preventDefault();
    setStatus(null);
    try {
      const trimmed = name.trim();
      const user = await unwrap(
        // The choice goes only once the person ticked the box: a default shown while loading never overrides it.
        client.PUT('/api/users/me', {
          body: { name: trimmed || null, ...(ticked === null ? {} : { mentionEmails: ticked }) },
        }),
      );
      const s = getSession();
      if (s) setSession({ ...s, user: { ...s.user, name: user.name } });
      qc.setQueryData(['me'], user);
      setName(null);
      setMentionEmails(null);
      // Every list showing people (members, assignees) shows the new name.
      await qc.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'me' });
      setStatus({ kind: 'ok', text: t('saved') });
    } catch (err) {
      setStatus({ kind: 'error', text: reason(err) });
    }
  };

  const user = me.data ?? getSession()?.user;
  return (
    <section aria-labelledby="profile-title" class="settings-block" data-testid="profile">
      <h2 id="profile-title">{t('profile')}</h2>
      {me.error && <p class="error">{reason(me.error)}</p>}
      <p class="profile-who">
        <Avatar user={user} size="md" /> {userName(user)} <span class="muted small">@{user?.username}</span>
      </p>
      <form class="card-form" onSubmit={save} aria-labelledby="profile-title">
        <Field label={t('displayName')} hint={t('displayNameHint')}>
          <input
            name="display-name"
            maxLength={120}
            autoComplete="name"
            value={name}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
        </Field>
        <label class="inline">
          <input
            type="checkbox"
            name="mention-emails"
            checked={mentionEmails}
            onChange={(e) => setMentionEmails((e.target as HTMLInputElement).checked)}
          />{' '}
          {t('mentionEmails')}
        </label>
        <Button submit>{t('save')}</Button>
      </form>
      {status && (
        <p role={status.kind === 'error' ? 'alert' : 'status'} class={status.kind}>
          {status.text}
        </p>
      )}
    </section>
  );
}
