import { navigate } from '../router';

/**
 * An in-app link: a real `/app…` href, followed without a reload (modified clicks open as usual). `onClick` runs on
 * every click before the link is followed, told whether it is followed here (a plain click) or opens elsewhere.
 */
export function Link({
  onClick,
  ...props
}: {
  href: string;
  children: any;
  class?: string;
  'aria-current'?: 'page';
  onClick?: (here: boolean) => void;
}) {
  return (
    <a
      {...props}
      href={`/app${props.href}`}
      onClick={(e) => {
        const here = !(e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0);
        onClick?.(here);
        if (!here) return;
        e.preventDefault();
        navigate(props.href);
      }}
    />
  );
}
