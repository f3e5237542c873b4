import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, type Page, reason, unwrap } from '../api';
import {
  codeWord,
  isLate,
  kw,
  PRIORITIES,
  recurrenceWord,
  STATUSES,
  type Task,
  type TaskKey,
} from '../components/tasks/model';
import { TaskEditor } from '../components/tasks/TaskEditor';
import { dateTime } from '../i18n';
import { addDays } from '../lib/dates';
import { useMembers } from '../lib/directory';
import { personName } from '../lib/people';
import { num } from '../lib/words';
import { canWrite } from '../session';
import {
  Avatar,
  Badge,
  Button,
  type Column,
  confirmAction,
  DataTable,
  Field,
  PageHeader,
  Pagination,
  type Sort,
  type Tone,
  toast,
} from '../ui';

const PAGE_SIZE = 25;
const DUES = ['all', 'late', 'today', 'week', 'none'] as const;
type Due = (typeof DUES)[number];
const PRIORITY_TONE: Record<string, Tone> = {
  low: 'neutral',
  medium: 'info',
  high: 'warning',
  urgent: 'danger',
};
const OPEN = { $notIn: ['completed', 'cancelled'] };

/** The API's filters of the chosen status, priority, person and due date. */
function filtersOf(status: string, priority: string, assignee: string, due: Due) {
  const f: Record<string, unknown> = {};
  const taskStatus: Record<string, unknown> = status ? { $eq: status } : {};
  if (priority) f.priority = { $eq: priority };
  if (assignee) f.assignees = { documentId: { $eq: assignee } };
  const today = addDays(new Date(), 0);
  if (due === 'late') {
    f.dueDate = { $lt: new Date().toISOString() };
    Object.assign(taskStatus, OPEN);
  } else if (due === 'today') {
    f.dueDate = { $gte: today.toISOString(), $lt: addDays(today, 1).toISOString() };
  } else if (due === 'week') {
    f.dueDate = { $gte: new Date().toISOString(), $lt: addDays(today, 8).toISOString() };
  } else if (due === 'none') {
    f.dueDate = { $null: true };
  }
  if (Object.keys(taskStatus).length) f.taskStatus = taskStatus;
  return f;
}

/**
 * Tasks (issue 31 item 1): filtered by status, priority, person and due date, sorted and paged by the API; a task
 * created or edited (due date in the chosen language, people by name, its card, its recurrence), its status
 * changed in place, deleted after confirming; late ones marked.
 */
export function TasksPage() {
  const write = canWrite();
  const qc = useQueryClient();
  const members = useMembers();
  const [status, setStatus] = useState('');
  const [priority, setPriority] = useState('');
  const [assignee, setAssignee] = useState('');
  const [due, setDue] = useState<Due>('all');
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<Sort>({ key: 'dueDate', dir: 'asc' });
  const [editing, setEditing] = useState<Task | 'new' | null>(null);
  const [error, setError] = useState('');
  const filters = filtersOf(status, priority, assignee, due);
  const list = useQuery({
    queryKey: ['tasks', JSON.stringify(filters), page, sort.key, sort.dir],
    placeholderData: keepPreviousData,
    queryFn: async () =>
      (await unwrap(
        client.GET('/api/tasks', {
          params: {
            query: {
              filters,
              sort: `${sort.key}:${sort.dir}`,
              pagination: { page, pageSize: PAGE_SIZE },
            } as never,
          },
        }),
      )) as unknown as Page<Task>,
  });
  const filtered = !!(status || priority || assignee || due !== 'all');
  const reset = () => {
    setStatus('');
    setPriority('');
    setAssignee('');
    setDue('all');
    setPage(1);
  };
  const change = async (x: Task, taskStatus: string) => {
    setError('');
    try {
      await unwrap(
        client.PUT('/api/tasks/{id}/status', {
          params: { path: { id: x.documentId } },
          body: { data: { taskStatus } } as never,
        }),
      );
      toast(kw('statusChanged', { status: codeWord('st', taskStatus) }));
    } catch (err) {
      setError(reason(err));
    }
    await qc.invalidateQueries({ queryKey: ['tasks'] });
  };
  const remove = async (x: Task) => {
    const ok = await confirmAction({
      title: kw('removeTitle'),
      text: kw('removeText', { name: x.name }),
      confirmLabel: kw('remove'),
      danger: true,
    });
    if (!ok) return;
    setError('');
    try {
      await unwrap(client.DELETE('/api/tasks/{id}', { params: { path: { id: x.documentId } } }));
      toast(kw('removed'));
      await qc.invalidateQueries({ queryKey: ['tasks'] });
    } catch (err) {
      setError(reason(err));
    }
  };
  const columns: Column<Task>[] = [
    {
      key: 'name',
      label: kw('name'),
      sortable: true,
      render: (x) => (
        <span class="task-title">
          <strong>{x.name}</strong>
          {x.card && <span class="muted">{x.card.title}</span>}
          {x.recurrence !== 'none' && <span class="muted">{kw('repeats', { rule: recurrenceWord(x) })}</span>}
        </span>
      ),
    },
    {
      key: 'assignees',
      label: kw('assignees'),
      render: (x) =>
        x.assignees.length ? (
          <span class="task-people-list">
            {x.assignees.map((a) => (
              <span key={a.documentId} class="person">
                <Avatar user={a.user} /> {personName(a)}
              </span>
            ))}
          </span>
        ) : (
          <span class="muted">{kw('nobody')}</span>
        ),
    },
    {
      key: 'dueDate',
      label: kw('due'),
      sortable: true,
      render: (x) =>
        x.dueDate ? (
          <span class={isLate(x) ? 'task-late' : undefined}>
            {dateTime(x.dueDate)} {isLate(x) && <Badge tone="danger">{kw('late')}</Badge>}
          </span>
        ) : (
          <span class="muted">{kw('noDue')}</span>
        ),
    },
    {
      key: 'priority',
      label: kw('priority'),
      render: (x) => (
        <Badge tone={PRIORITY_TONE[x.priority] ?? 'neutral'}>{codeWord('pr', x.priority)}</Badge>
      ),
    },
    {
      key: 'taskStatus',
      label: kw('status'),
      sortable: true,
      render: (x) =>
        write ? (
          <label>
            <span class="sr-only">{kw('statusOf', { name: x.name })}</span>
            <select
              name={`task-status-${x.documentId}`}
              value={x.taskStatus}
              onChange={(e) => change(x, (e.target as HTMLSelectElement).value)}
            >
              {[...new Set([...STATUSES, x.taskStatus])].map((s) => (
                <option key={s} value={s}>
                  {codeWord('st', s)}
                </option>
              ))}
            </select>
          </label>
        ) : (
          codeWord('st', x.taskStatus)
        ),
    },
    ...(write
      ? [
          {
            key: 'actions',
            label: kw('actions'),
            render: (x: Task) => (
              <span class="ds-actions">
                <Button
                  variant="secondary"
                  onClick={() => setEditing(x)}
                  aria-label={kw('editOf', { name: x.name })}
                >
                  {kw('edit')}
                </Button>
                <Button
                  variant="ghost"
                  onClick={() => remove(x)}
                  aria-label={kw('removeOf', { name: x.name })}
                >
                  {kw('remove')}
                </Button>
              </span>
            ),
          },
        ]
      : []),
  ];
  const pick =
    <T extends string>(set: (v: T) => void) =>
    (e: Event) => {
      set((e.target as HTMLSelectElement).value as T);
      setPage(1);
    };
  const pag = list.data?.meta.pagination;
  return (
    <section class="page tasks" data-testid="tasks">
      <PageHeader
        title={kw('title')}
        actions={write && <Button onClick={() => setEditing('new')}>{kw('newTask')}</Button>}
      >
        <p class="muted">{kw('intro')}</p>
      </PageHeader>
      <fieldset class="task-filters">
        <legend class="sr-only">{kw('filters')}</legend>
        <Field label={kw('status')}>
          <select name="filter-status" value={status} onChange={pick(setStatus)}>
            <option value="">{kw('all')}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {codeWord('st', s)}
              </option>
            ))}
          </select>
        </Field>
        <Field label={kw('priority')}>
          <select name="filter-priority" value={priority} onChange={pick(setPriority)}>
            <option value="">{kw('all')}</option>
            {PRIORITIES.map((s) => (
              <option key={s} value={s}>
                {codeWord('pr', s)}
              </option>
            ))}
          </select>
        </Field>
        <Field label={kw('assignee')}>
          <select name="filter-assignee" value={assignee} onChange={pick(setAssignee)}>
            <option value="">{kw('anyone')}</option>
            {(members.data ?? []).map((m) => (
              <option key={m.documentId} value={m.documentId}>
                {personName(m)}
              </option>
            ))}
          </select>
        </Field>
        <Field label={kw('due')}>
          <select name="filter-due" value={due} onChange={pick<Due>((v) => setDue(v))}>
            {DUES.map((d) => (
              <option key={d} value={d}>
                {kw(`due_${d}` as TaskKey)}
              </option>
            ))}
          </select>
        </Field>
        {filtered && (
          <Button variant="ghost" onClick={reset}>
            {kw('clearFilters')}
          </Button>
        )}
      </fieldset>
      {(error || list.error) && (
        <p role="alert" class="error">
          {error || reason(list.error)}
        </p>
      )}
      <DataTable
        caption={kw('listCaption')}
        testId="tasks-table"
        columns={columns}
        rows={list.data?.data}
        loading={list.isLoading}
        rowKey={(x) => x.documentId}
        rowAttrs={(x) => ({ 'data-task-id': x.documentId, ...(isLate(x) ? { 'data-late': 'true' } : {}) })}
        sort={sort}
        onSort={(s) => {
          setSort(s);
          setPage(1);
        }}
        empty={filtered ? kw('emptyFiltered') : kw('empty')}
        footer={
          pag && (
            <div class="ct-foot">
              <span class="muted">{kw(pag.total === 1 ? 'totalOne' : 'total', { n: num(pag.total) })}</span>
              <Pagination page={page} pageCount={pag.pageCount} onPage={setPage} />
            </div>
          )
        }
      />
      {editing && (
        <TaskEditor
          key={editing === 'new' ? 'new' : editing.documentId}
          task={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
        />
      )}
    </section>
  );
}
