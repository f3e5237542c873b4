/** The signed-in session (session JWT from POST /api/auth/local) and the chosen organization, kept in localStorage. */
export interface Session {
  jwt: string;
  user: { id: number; username: string; email: string; name?: string | null };
  org?: { slug: string; name: string; role: Role; documentId: string };
}
export type Role = 'owner' | 'admin' | 'member' | 'viewer';

const KEY = 'crm.session';
let current: Session | null = read();
const listeners = new Set<() => void>();

function read(): Session | null {
  try {
    const raw = localStorage.getItem(KEY);
    if (!raw) return null;
    const s = JSON.parse(raw) as Session;
    // A session JWT lasts 2 h: an expired one is dropped here rather than failing every request.
    const exp = JSON.parse(atob(s.jwt.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))).exp as number;
    return exp * 1000 > Date.now() ? s : null;
  } catch {
    return null;
  }
}

export const getSession = () => current;
export function setSession(s: Session | null) {
  current = s;
  if (s) localStorage.setItem(KEY, JSON.stringify(s));
  else localStorage.removeItem(KEY);
  for (const l of listeners) l();
}
export function onSession(l: () => void) {
  listeners.add(l);
  return () => listeners.delete(l);
}
/** Whether the member may write (members and up; the service still decides per board). */
export const canWrite = () => !!current?.org && current.org.role !== 'viewer';
