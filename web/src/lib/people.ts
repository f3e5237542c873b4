// How the app names people (issue 31 item 4): the display name the person chose, else the username; initials
// for avatars. Every page that shows a person goes through these.

/** A user as the API's UserRef (and the session's user) carries it. */
export interface PersonUser {
  username: string;
  name?: string | null;
}

/** Anything that holds a user: a MembershipRef, a member row, an author. */
interface HasUser {
  documentId?: string;
  user?: PersonUser | null;
}

/** The name to show for a user: the display name, else the username. */
export const userName = (u: PersonUser | null | undefined): string => u?.name?.trim() || u?.username || '';

/** The name to show for a membership-like ref; its documentId when the user is not there. */
export const personName = (r: HasUser | null | undefined): string => userName(r?.user) || r?.documentId || '';

/** Up to two initials: first and last word of the display name, else the username's first two letters. */
export function initials(u: PersonUser | null | undefined): string {
  const name = u?.name?.trim();
  if (name) {
    const words = name.split(/\s+/);
    const first = [...words[0]][0] ?? '';
    const last = words.length > 1 ? ([...words[words.length - 1]][0] ?? '') : '';
    return (first + last).toLocaleUpperCase();
  }
  const parts = (u?.username ?? '').split(/[._-]+/).filter((p) => /^[\p{L}]/u.test(p));
  if (parts.length > 1) return (parts[0][0] + parts[1][0]).toLocaleUpperCase();
  return (u?.username ?? '?').slice(0, 2).toLocaleUpperCase();
}
