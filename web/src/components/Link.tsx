import { navigate } from '../router';

/** An in-app link: a real `/app…` href, followed without a reload (modified clicks open as usual). */
export function Link(props: { href: string; children: any; class?: string; 'aria-current'?: 'page' }) {
  return (
    <a
      {...props}
      href={`/app${props.href}`}
      onClick={(e) => {
        if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        navigate(props.href);
      }}
    />
  );
}
