/**
 * The design system (issue 31 item 7): tokens in styles.css (`--ds-*`), and these components, used by every page.
 * docs/web-app.md "Design system" shows them.
 */
export { Avatar } from './Avatar';
export { Badge, type Tone } from './Badge';
export { Button, type ButtonVariant } from './Button';
export { ConfirmHost, confirmAction } from './Confirm';
export { type Column, DataTable, type Sort } from './DataTable';
export { Dialog } from './Dialog';
export { EmptyState } from './EmptyState';
export { Field } from './Field';
export { PageHeader } from './PageHeader';
export { Pagination } from './Pagination';
export { Skeleton } from './Skeleton';
export { Toasts, toast } from './Toasts';
