import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Skeleton } from '../ui';

/**
 * A page loaded when first shown (its own chunk, kept out of the first download): the areas reached from "Mais"
 * that a day's work may never open. A skeleton stands in while it loads; once loaded it renders at once.
 */
export function lazyPage<P extends object>(load: () => Promise<FunctionComponent<P>>): FunctionComponent<P> {
  let loaded: FunctionComponent<P> | null = null;
  return function LazyPage(props: P) {
    const [Page, setPage] = useState(() => loaded);
    useEffect(() => {
      if (Page) return;
      let live = true;
      void load().then((c) => {
        loaded = c;
        if (live) setPage(() => c);
      });
      return () => {
        live = false;
      };
    }, []);
    return Page ? (
      <Page {...props} />
    ) : (
      <section class="page">
        <Skeleton lines={6} />
      </section>
    );
  };
}
