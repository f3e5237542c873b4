import { initials, type PersonUser, userName } from '../lib/people';

/** A person's initials in a circle; the name for screen readers and as a tooltip. */
export function Avatar({ user, size = 'sm' }: { user: PersonUser | null | undefined; size?: 'sm' | 'md' }) {
  const name = userName(user);
  return (
    <span class={`ds-avatar ds-avatar-${size}`} title={name} role="img" aria-label={name}>
      {initials(user)}
    </span>
  );
}
