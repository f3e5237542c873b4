import { areas } from '../areas';
import { Link } from '../components/Link';
import { wordsOf } from '../lib/area-words';
import { Badge, EmptyState, PageHeader } from '../ui';
import { uw } from '../ui/words';
import * as catalogue from '../words/more';

const mw = wordsOf(catalogue);

/** Every area beyond the main navigation, with a line on what it is for. */
export function MorePage() {
  return (
    <section class="page">
      <PageHeader title={mw('title')}>
        <p class="muted">{mw('intro')}</p>
      </PageHeader>
      {areas.length === 0 ? (
        <EmptyState text={mw('none')} />
      ) : (
        <ul class="more-areas">
          {areas.map((a) => (
            <li key={a.path} class="more-area">
              <Link href={a.path}>
                <strong>{a.label()}</strong> {a.beta && <Badge tone="info">{uw('beta')}</Badge>}
              </Link>
              <p class="muted small">{a.description()}</p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
