import { t } from '../i18n';
import { Link } from './Link';

/** "Not on your plan": the area's routes answered 403 naming the plan feature. */
export function FeatureOff({ feature }: { feature: string }) {
  return (
    <section class="page narrow" data-testid="feature-unavailable">
      <h1>{t('notOnPlan')}</h1>
      <p>
        {t('notOnPlanText')} (<code>{feature}</code>)
      </p>
      <Link href="/boards">{t('boards')}</Link>
    </section>
  );
}
