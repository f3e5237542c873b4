import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, unwrap } from '../../api';
import { findCards, useBoardList } from '../../lib/board-queries';
import { useMembers } from '../../lib/directory';
import { refusalOf } from '../../lib/marketing';
import { personName } from '../../lib/people';
import { Avatar, Button, Dialog, Field, toast } from '../../ui';
import { DateTimeInput } from '../DateTimeInput';
import { RichTextArea } from '../RichTextArea';
import {
  codeWord,
  emptyIsRequired,
  fromLocal,
  kw,
  PRIORITIES,
  RECURRENCES,
  STATUSES,
  type Task,
  TYPES,
  toLocal,
} from './model';

type Linked = { documentId: string; title: string } | null;

/** A task's title, description, due date, type, priority, status, people, card and recurrence. */
export function TaskEditor({ task, onClose }: { task: Task | null; onClose: () => void }) {
  const qc = useQueryClient();
  const members = useMembers();
  const [name, setName] = useState(task?.name ?? '');
  // The description as the service keeps it (HTML): sent back untouched unless edited (RichTextArea).
  const [description, setDescription] = useState<string | null>(task?.description ?? null);
  const [due, setDue] = useState(toLocal(task?.dueDate ?? null));
  const [type, setType] = useState<string>(task?.type ?? 'reminder');
  const [priority, setPriority] = useState<string>(task?.priority ?? 'medium');
  const [status, setStatus] = useState(task?.taskStatus ?? '');
  const [assignees, setAssignees] = useState<string[]>(task?.assignees.map((a) => a.documentId) ?? []);
  const [card, setCard] = useState<Linked>(task?.card ?? null);
  const [recurrence, setRecurrence] = useState<string>(task?.recurrence ?? 'none');
  const [interval, setInterval] = useState(String(task?.recurrenceInterval ?? 1));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const statuses = [...new Set([...STATUSES, ...(task ? [task.taskStatus] : [])])];

  const save = async (ev: Event) => {
    ev.preventDefault();
    setErrors({});
    setGeneral('');
    setBusy(true);
    const data = {
      name,
      description,
      dueDate: fromLocal(due),
      type,
      priority,
      ...(task && status !== task.taskStatus ? { taskStatus: status } : {}),
      assignees,
      card: card?.documentId ?? null,
      recurrence,
      recurrenceInterval: Number(interval) || 1,
    };
    try {
      if (task) {
        await unwrap(
          client.PUT('/api/tasks/{id}', {
            params: { path: { id: task.documentId } },
            body: { data } as never,
          }),
        );
      } else {
        await unwrap(client.POST('/api/tasks', { body: { data } as never }));
      }
      toast(kw('saved'));
      await qc.invalidateQueries({ queryKey: ['tasks'] });
      onClose();
    } catch (err) {
      const r = refusalOf(
        err,
        ['name', 'description', 'dueDate', 'taskStatus', 'card', 'assignees', 'recurrenceInterval'],
        emptyIsRequired,
      );
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };
  const select = (
    value: string,
    set: (v: string) => void,
    nameAttr: string,
    items: readonly string[],
    prefix: 'st' | 'pr' | 'ty' | 'rec',
    empty?: string,
  ) => (
    <select name={nameAttr} value={value} onChange={(e) => set((e.target as HTMLSelectElement).value)}>
      {empty !== undefined && <option value="">{empty}</option>}
      {items.map((s) => (
        <option key={s} value={s}>
          {codeWord(prefix, s)}
        </option>
      ))}
    </select>
  );
  return (
    <Dialog
      open
      wide
      title={task ? kw('editTask') : kw('newTask')}
      onClose={onClose}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {kw('cancel')}
          </Button>
          <Button submit busy={busy} form="task-form">
            {kw('save')}
          </Button>
        </>
      }
    >
      <form id="task-form" class="mkt-form task-form" onSubmit={save} noValidate>
        <Field label={kw('name')} required error={errors.name}>
          <input
            name="task-name"
            maxLength={255}
            value={name}
            onInput={(e) => {
              setName((e.target as HTMLInputElement).value);
              if (errors.name) setErrors({ ...errors, name: '' });
            }}
          />
        </Field>
        <Field label={kw('description')} error={errors.description}>
          <RichTextArea name="task-description" rows={3} html={description} onHtml={setDescription} />
        </Field>
        <div class="mkt-row">
          <Field label={kw('dueDate')} error={errors.dueDate}>
            <DateTimeInput name="task-due" value={due} onChange={setDue} timeLabel={kw('dueTime')} />
          </Field>
          <Field label={kw('priority')}>
            {select(priority, setPriority, 'task-priority', PRIORITIES, 'pr')}
          </Field>
          <Field label={kw('type')}>{select(type, setType, 'task-type', TYPES, 'ty')}</Field>
          {task && (
            <Field label={kw('status')} error={errors.taskStatus}>
              {select(status, setStatus, 'task-status', statuses, 'st')}
            </Field>
          )}
        </div>
        <fieldset class="task-people">
          <legend>{kw('assignees')}</legend>
          {(members.data ?? []).map((m) => (
            <label key={m.documentId} class="mkt-check">
              <input
                type="checkbox"
                name={`task-assignee-${m.documentId}`}
                checked={assignees.includes(m.documentId)}
                onChange={(e) =>
                  setAssignees(
                    (e.target as HTMLInputElement).checked
                      ? [...assignees.filter((x) => x !== m.documentId), m.documentId]
                      : assignees.filter((x) => x !== m.documentId),
                  )
                }
              />{' '}
              <span aria-hidden="true">
                <Avatar user={m.user} />
              </span>{' '}
              {personName(m)}
            </label>
          ))}
          {errors.assignees && (
            <p role="alert" class="error">
              {errors.assignees}
            </p>
          )}
        </fieldset>
        <CardPicker card={card} onCard={setCard} error={errors.card} />
        <div class="mkt-row">
          <Field label={kw('recurrence')} hint={recurrence !== 'none' ? kw('recurrenceHint') : undefined}>
            {select(recurrence, setRecurrence, 'task-recurrence', RECURRENCES, 'rec')}
          </Field>
          {recurrence !== 'none' && (
            <Field label={kw('every')} hint={kw('everyHint')} error={errors.recurrenceInterval}>
              <input
                name="task-interval"
                type="number"
                min={1}
                max={365}
                value={interval}
                onInput={(e) => setInterval((e.target as HTMLInputElement).value)}
              />
            </Field>
          )}
        </div>
        {general && (
          <p role="alert" class="error">
            {general}
          </p>
        )}
      </form>
    </Dialog>
  );
}

/** The card a task belongs to: a board, then a card found by its title on it. */
function CardPicker({ card, onCard, error }: { card: Linked; onCard: (c: Linked) => void; error?: string }) {
  const [board, setBoard] = useState('');
  const [q, setQ] = useState('');
  const boards = useBoardList();
  const found = useQuery({
    queryKey: ['task-card-search', board, q],
    enabled: !!board && q.trim().length >= 2,
    queryFn: () => findCards(board, q, 6),
  });
  return (
    <fieldset class="task-card">
      <legend>{kw('card')}</legend>
      <p data-testid="task-card">
        <strong>{card ? kw('linked', { name: card.title }) : kw('noCard')}</strong>{' '}
        {card && (
          <Button variant="ghost" onClick={() => onCard(null)}>
            {kw('unlink')}
          </Button>
        )}
      </p>
      <div class="mkt-row">
        <label>
          <span class="sr-only">{kw('board')}</span>
          <select
            name="task-card-board"
            value={board}
            onChange={(e) => setBoard((e.target as HTMLSelectElement).value)}
          >
            <option value="">{kw('pickBoard')}</option>
            {(boards.data ?? []).map((b) => (
              <option key={b.documentId} value={b.documentId}>
                {b.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span class="sr-only">{kw('searchCard')}</span>
          <input
            type="search"
            name="task-card-search"
            placeholder={kw('searchCard')}
            disabled={!board}
            value={q}
            onInput={(e) => setQ((e.target as HTMLInputElement).value)}
          />
        </label>
      </div>
      {q.trim().length >= 2 && !!found.data?.length && (
        <ul class="plain task-card-found">
          {found.data.map((c) => (
            <li key={c.documentId}>
              <button
                type="button"
                class="link"
                onClick={() => {
                  onCard({ documentId: c.documentId, title: c.title });
                  setQ('');
                }}
              >
                {c.title}
              </button>
            </li>
          ))}
        </ul>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </fieldset>
  );
}
