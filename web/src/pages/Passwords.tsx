import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, unwrap } from '../api';
import { Link } from '../components/Link';
import { t } from '../i18n';
import { wordsOf } from '../lib/area-words';
import { useSubmit } from '../lib/submit';
import { navigate } from '../router';
import { getSession, type Session, setSession } from '../session';
import { Button, Field } from '../ui';
import * as catalogue from '../words/passwords';

/** The words of forgotten and changed passwords (web/src/words/passwords.ts). */
export const pwd = wordsOf(catalogue);

/** `/app/forgot-password`: asks for the e-mailed reset link (POST /api/auth/forgot-password). */
export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [sentTo, setSentTo] = useState('');
  const { error, busy, run } = useSubmit();
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      await unwrap(client.POST('/api/auth/forgot-password', { body: { email } }));
      setSentTo(email.trim());
    });
  };
  return (
    <form class="card-form auth" onSubmit={submit} aria-labelledby="forgot-title">
      <h1 id="forgot-title">{pwd('forgotTitle')}</h1>
      {sentTo ? (
        <p role="status" class="ok" data-testid="forgot-sent">
          {pwd('forgotSent', { email: sentTo })}
        </p>
      ) : (
        <>
          <p class="muted">{pwd('forgotIntro')}</p>
          <Field label={t('email')} required>
            <input
              type="email"
              name="email"
              autoComplete="email"
              value={email}
              onInput={(e) => setEmail((e.target as HTMLInputElement).value)}
            />
          </Field>
          {error && (
            <p role="alert" class="error">
              {error}
            </p>
          )}
          <Button submit busy={busy}>
            {pwd('forgotSend')}
          </Button>
        </>
      )}
      <Link href="/">{pwd('backToSignIn')}</Link>
    </form>
  );
}

/** The new password twice, checked alike before it is sent. */
function NewPassword(props: {
  value: { password: string; confirmation: string };
  onChange: (v: { password: string; confirmation: string }) => void;
  mismatch: boolean;
}) {
  const { value, onChange } = props;
  return (
    <>
      <Field label={pwd('newPassword')} hint={pwd('newPasswordHint')} required>
        <input
          type="password"
          name="new-password"
          autoComplete="new-password"
          minLength={8}
          maxLength={200}
          value={value.password}
          onInput={(e) => onChange({ ...value, password: (e.target as HTMLInputElement).value })}
        />
      </Field>
      <Field label={pwd('confirmPassword')} error={props.mismatch ? pwd('mismatch') : undefined} required>
        <input
          type="password"
          name="confirm-password"
          autoComplete="new-password"
          maxLength={200}
          value={value.confirmation}
          onInput={(e) => onChange({ ...value, confirmation: (e.target as HTMLInputElement).value })}
        />
      </Field>
    </>
  );
}

/** `/app/reset-password?code=…` (the e-mailed link): a new password, then signed in (POST /api/auth/reset-password). */
export function ResetPasswordPage() {
  const qc = useQueryClient();
  const code = new URLSearchParams(location.search).get('code') ?? '';
  const [v, setV] = useState({ password: '', confirmation: '' });
  const [mismatch, setMismatch] = useState(false);
  const { error, busy, run } = useSubmit({ code: pwd('codeRefused') });
  const submit = (e: Event) => {
    e.preventDefault();
    if (v.password !== v.confirmation) return setMismatch(true);
    setMismatch(false);
    void run(async () => {
      const res = await unwrap(
        client.POST('/api/auth/reset-password', {
          body: { code, password: v.password, passwordConfirmation: v.confirmation },
        }),
      );
      // Whoever was signed in here before, nothing of theirs is shown to the person who reset.
      qc.clear();
      setSession({ jwt: res.jwt, user: res.user as never });
      navigate('/orgs', true);
    });
  };
  return (
    <form class="card-form auth" onSubmit={submit} aria-labelledby="reset-title">
      <h1 id="reset-title">{pwd('resetTitle')}</h1>
      {code ? (
        <>
          <p class="muted">{pwd('resetIntro')}</p>
          <NewPassword value={v} onChange={setV} mismatch={mismatch} />
          {error && (
            <p role="alert" class="error">
              {error}
            </p>
          )}
          <Button submit busy={busy}>
            {pwd('resetSave')}
          </Button>
        </>
      ) : (
        <p role="alert" class="error">
          {pwd('resetNoCode')}
        </p>
      )}
      <Link href="/forgot-password">{pwd('askAgain')}</Link>
    </form>
  );
}

/** Settings: the signed-in person changes their password (POST /api/auth/change-password). */
export function ChangePassword() {
  const [current, setCurrent] = useState('');
  const [v, setV] = useState({ password: '', confirmation: '' });
  const [mismatch, setMismatch] = useState(false);
  const [done, setDone] = useState(false);
  const { error, busy, run } = useSubmit({ currentPassword: pwd('currentWrong') });
  const submit = (e: Event) => {
    e.preventDefault();
    setDone(false);
    if (v.password !== v.confirmation) return setMismatch(true);
    setMismatch(false);
    void run(async () => {
      const res = await unwrap(
        client.POST('/api/auth/change-password', {
          body: { currentPassword: current, password: v.password, passwordConfirmation: v.confirmation },
        }),
      );
      // The sessions issued before the change are over: this page goes on with the new one (same organization).
      const s = getSession();
      setSession({ ...s, jwt: res.jwt, user: { ...s?.user, ...(res.user as Session['user']) } });
      setCurrent('');
      setV({ password: '', confirmation: '' });
      setDone(true);
    });
  };
  return (
    <section aria-labelledby="password-title" class="settings-block" data-testid="change-password">
      <h2 id="password-title">{pwd('changeTitle')}</h2>
      <p class="muted small">{pwd('changeIntro')}</p>
      <form class="card-form" onSubmit={submit} aria-labelledby="password-title">
        <Field label={pwd('currentPassword')} required>
          <input
            type="password"
            name="current-password"
            autoComplete="current-password"
            value={current}
            onInput={(e) => setCurrent((e.target as HTMLInputElement).value)}
          />
        </Field>
        <NewPassword value={v} onChange={setV} mismatch={mismatch} />
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        {done && (
          <p role="status" class="ok">
            {pwd('changed')}
          </p>
        )}
        <Button submit busy={busy}>
          {pwd('changeSave')}
        </Button>
      </form>
    </section>
  );
}
