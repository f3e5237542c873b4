import type { ComponentChildren } from 'preact';
import { Badge } from './Badge';
import { uw } from './words';

/** A page's title, its BETA mark where the area is BETA, and its main actions on the right. */
export function PageHeader({
  title,
  beta,
  actions,
  children,
}: {
  title: ComponentChildren;
  beta?: boolean;
  actions?: ComponentChildren;
  children?: ComponentChildren;
}) {
  return (
    <header class="ds-page-header">
      <div>
        <h1>
          {title} {beta && <Badge tone="info">{uw('beta')}</Badge>}
        </h1>
        {children}
      </div>
      {actions && <div class="ds-actions">{actions}</div>}
    </header>
  );
}
