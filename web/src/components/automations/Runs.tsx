import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { type Board, client, type Ref, reason, unwrap } from '../../api';
import { dateTime } from '../../i18n';
import { Badge, type Column, DataTable, Dialog, Field, Pagination, type Tone } from '../../ui';
import { Link } from '../Link';
import {
  type ActionResult,
  type Automation,
  actionWord,
  aw,
  eventWord,
  fieldLabel,
  memberName,
  phaseName,
  type Run,
  type RunStatus,
  tagName,
  useBoard,
  useMembers,
} from './model';

const TONE: Record<RunStatus, Tone> = {
  pending: 'info',
  succeeded: 'success',
  failed: 'danger',
  skipped: 'neutral',
};
const STATUSES: RunStatus[] = ['succeeded', 'failed', 'skipped', 'pending'];

/** Why an action failed, as words where the service's text says a known kind; the text itself beside it. */
function whyWord(message: string): string {
  if (/is not allowed|transition/i.test(message)) return aw('why_transition');
  if (/required/i.test(message)) return aw('why_required');
  if (/suppression/i.test(message)) return aw('why_suppressed');
  if (/consent/i.test(message)) return aw('why_consent');
  if (/address|private|public_address|blocked/i.test(message)) return aw('why_address');
  return aw('why_other');
}

/** What one action did, in words (phases, tags, fields and people by their names). */
function didWords(r: ActionResult, board: Board | null | undefined, members: Ref[] | undefined): string {
  const o = (r.output ?? {}) as Record<string, any>;
  if (o.skipped) return aw('r_skipped', { reason: whyWord(String(o.reason ?? '')) });
  switch (r.type) {
    case 'move_card':
      return aw('r_move_card', { phase: phaseName(board, String(o.phase ?? '')) });
    case 'assign':
      return aw('r_assign', { person: memberName(members, String(o.membership ?? '')) });
    case 'add_tag':
    case 'remove_tag':
      return aw(`r_${r.type}`, { tag: tagName(board, String(o.tag ?? '')) });
    case 'set_field':
      return aw('r_set_field', { field: fieldLabel(board, String(o.slug ?? '')) });
    case 'set_due_date':
      return aw('r_set_due_date', { date: dateTime(o.dueDate) });
    case 'create_task':
      return aw('r_create_task');
    case 'http_request':
      return aw('r_http_request', { status: String(o.status ?? '—') });
    default:
      return aw('r_sent');
  }
}

function RunResults({ run, board, members }: { run: Run; board?: Board | null; members?: Ref[] }) {
  const head =
    run.status === 'skipped'
      ? /loop guard/i.test(run.message ?? '')
        ? aw('runSkippedLoop')
        : aw('runSkippedDisabled')
      : run.status === 'failed' && run.results.length
        ? aw('runFailedCount', { n: run.results.filter((r) => !r.ok).length, total: run.results.length })
        : run.status === 'pending' && /will retry/.test(run.message ?? '')
          ? aw('willRetry')
          : '';
  return (
    <div class="auto-results">
      {head && <p>{head}</p>}
      {run.results.length > 0 && (
        <ol>
          {run.results.map((r, i) => (
            <li key={i} class={r.ok ? 'ok' : 'failed'}>
              <strong>{actionWord(r.type)}</strong>:{' '}
              {r.ok ? didWords(r, board, members) : `${aw('r_failed')} — ${whyWord(r.message ?? '')}`}
              {!r.ok && r.message && (
                <>
                  {' '}
                  <span class="sr-only">{aw('serviceSaid')}: </span>
                  <code lang="en">{r.message}</code>
                </>
              )}
            </li>
          ))}
        </ol>
      )}
      {!run.results.length && run.status === 'failed' && run.message && <code lang="en">{run.message}</code>}
    </div>
  );
}

/** An automation's runs, newest first, with each action's result; refreshed while open. */
export function Runs({ auto, onClose }: { auto: Automation; onClose: () => void }) {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const board = useBoard(auto.board?.documentId).data;
  const members = useMembers().data;
  const r = useQuery({
    queryKey: ['automation-runs', auto.documentId, page, status],
    placeholderData: keepPreviousData,
    refetchInterval: 2000,
    queryFn: async () =>
      (await unwrap(
        client.GET('/api/automations/{id}/runs', {
          params: {
            path: { id: auto.documentId },
            query: { pagination: { page, pageSize: 20 }, ...(status ? { status } : {}) } as never,
          },
        }),
      )) as unknown as { data: Run[]; meta: { pagination: { pageCount: number } } },
  });
  const columns: Column<Run>[] = [
    { key: 'when', label: aw('runWhen'), render: (x) => dateTime(x.finishedAt ?? x.createdAt) },
    {
      key: 'event',
      label: aw('runEvent'),
      render: (x) => (
        <>
          {eventWord(x.eventType)}
          {x.depth > 0 && <span class="muted"> · {aw('runDepth', { n: x.depth })}</span>}
          {auto.board && x.subject.startsWith('card:') && x.eventType !== 'card.deleted' && (
            <>
              {' · '}
              <Link href={`/boards/${auto.board.documentId}/cards/${x.subject.slice(5)}`}>
                {aw('openCard')}
              </Link>
            </>
          )}
        </>
      ),
    },
    {
      key: 'status',
      label: aw('runStatus'),
      render: (x) => <Badge tone={TONE[x.status]}>{aw(`st_${x.status}`)}</Badge>,
    },
    {
      key: 'detail',
      label: aw('runDetail'),
      render: (x) => <RunResults run={x} board={board} members={members} />,
    },
  ];
  return (
    <Dialog open wide title={aw('runsOf', { name: auto.name })} onClose={onClose}>
      <div class="mkt" data-testid="automation-runs">
        <Field label={aw('filterStatus')}>
          <select
            name="run-status"
            value={status}
            onChange={(e) => {
              setStatus((e.target as HTMLSelectElement).value);
              setPage(1);
            }}
          >
            <option value="">{aw('allStatuses')}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {aw(`st_${s}`)}
              </option>
            ))}
          </select>
        </Field>
        {r.error && (
          <p role="alert" class="error">
            {reason(r.error)}
          </p>
        )}
        <DataTable
          caption={aw('runsOf', { name: auto.name })}
          columns={columns}
          rows={r.data?.data}
          loading={r.isLoading}
          rowKey={(x) => String(x.id)}
          empty={aw('runsEmpty')}
          footer={
            <Pagination page={page} pageCount={r.data?.meta.pagination.pageCount ?? 1} onPage={setPage} />
          }
        />
      </div>
    </Dialog>
  );
}
