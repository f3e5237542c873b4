import { uw } from './words';

/** Grey bars standing in for content while it loads (announced once as "loading"). */
export function Skeleton({ lines = 3 }: { lines?: number }) {
  return (
    <div class="ds-skeleton" aria-busy="true">
      <span class="sr-only" role="status">
        {uw('loading')}
      </span>
      {Array.from({ length: lines }, (_, i) => (
        <span key={i} class="ds-skeleton-line" aria-hidden="true" />
      ))}
    </div>
  );
}
