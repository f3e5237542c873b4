import { t } from '../../i18n';
import type { Role } from '../../session';

/** A role as a word of the chosen language. */
export const roleLabel = (r: string) => t(`role_${r as Role}`);

/** One membership or invitation change: a toast when done (`ok`), the service's reason when refused; true when done. */
export type Run = (
  call: () => Promise<{ data?: unknown; error?: unknown; response: Response }>,
  ok?: string,
) => Promise<boolean>;
