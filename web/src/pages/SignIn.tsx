import { useState } from 'preact/hooks';
import { client, unwrap } from '../api';
import { Link } from '../components/Link';
import { t } from '../i18n';
import { useSubmit } from '../lib/submit';
import { currentPath, navigate } from '../router';
import { setSession } from '../session';
import { Button, Field } from '../ui';
import { pwd } from './Passwords';

/** Where to go once signed in: back to an agent's confirmation link, else to the organizations. */
function afterSignIn() {
  // An agent's confirmation and an application's sign-in request come back to their page.
  const back = currentPath().startsWith('/confirm/') || currentPath() === '/oauth/consent';
  return back ? `${currentPath()}${location.search}` : '/orgs';
}

export function SignInPage() {
  const [identifier, setIdentifier] = useState('');
  const [password, setPassword] = useState('');
  const { error, busy, run } = useSubmit();
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const res = await unwrap(client.POST('/api/auth/local', { body: { identifier, password } }));
      setSession({ jwt: res.jwt, user: res.user as never });
      navigate(afterSignIn(), true);
    });
  };
  return (
    <form class="card-form auth" onSubmit={submit} aria-labelledby="signin-title">
      <h1 id="signin-title">{t('signIn')}</h1>
      <Field label={t('email')} required>
        <input
          type="email"
          name="email"
          autoComplete="username"
          value={identifier}
          onInput={(e) => setIdentifier((e.target as HTMLInputElement).value)}
        />
      </Field>
      <Field label={t('password')} required>
        <input
          type="password"
          name="password"
          autoComplete="current-password"
          value={password}
          onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
        />
      </Field>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <Button submit busy={busy}>
        {t('signIn')}
      </Button>
      <Link href="/forgot-password">{pwd('forgotLink')}</Link>
      <Link href="/signup">{t('noAccount')}</Link>
    </form>
  );
}

export function SignUpPage() {
  const [v, setV] = useState({ username: '', email: '', password: '' });
  const { error, busy, run } = useSubmit();
  const set = (k: keyof typeof v) => (e: Event) => setV({ ...v, [k]: (e.target as HTMLInputElement).value });
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const res = await unwrap(client.POST('/api/auth/local/register', { body: v }));
      setSession({ jwt: res.jwt, user: res.user as never });
      navigate(afterSignIn(), true);
    });
  };
  return (
    <form class="card-form auth" onSubmit={submit} aria-labelledby="signup-title">
      <h1 id="signup-title">{t('signUp')}</h1>
      <Field label={t('username')} required>
        <input
          name="username"
          autoComplete="username"
          minLength={3}
          value={v.username}
          onInput={set('username')}
        />
      </Field>
      <Field label={t('email')} required>
        <input type="email" name="email" autoComplete="email" value={v.email} onInput={set('email')} />
      </Field>
      <Field label={t('password')} required>
        <input
          type="password"
          name="password"
          autoComplete="new-password"
          minLength={8}
          value={v.password}
          onInput={set('password')}
        />
      </Field>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <Button submit busy={busy}>
        {t('signUp')}
      </Button>
      <Link href="/">{t('haveAccount')}</Link>
    </form>
  );
}
