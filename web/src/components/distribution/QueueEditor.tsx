import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, unwrap } from '../../api';
import { useBoardList } from '../../lib/board-queries';
import { refusalOf } from '../../lib/marketing';
import { personName } from '../../lib/people';
import { Avatar, Button, Dialog, Field, toast } from '../../ui';
import {
  dw,
  type Queue,
  STRATEGIES,
  type Strategy,
  strategyWord,
  useInboxes,
  useMemberships,
} from './shared';

interface Pick {
  on: boolean;
  weight: string;
  active: boolean;
}

/**
 * Creates or edits a distribution queue (admins): its name, what it serves (a board or an inbox, fixed once
 * created), the strategy as words with what it does, and its people by name with weight and whether they receive.
 */
export function QueueEditor({ queue, onClose }: { queue: Queue | null; onClose: () => void }) {
  const qc = useQueryClient();
  const boards = useBoardList();
  const inboxes = useInboxes();
  const memberships = useMemberships();
  const [name, setName] = useState(queue?.name ?? '');
  const [target, setTarget] = useState<'board' | 'inbox'>(queue?.inbox ? 'inbox' : 'board');
  const [board, setBoard] = useState(queue?.board?.documentId ?? '');
  const [inbox, setInbox] = useState(queue?.inbox ? String(queue.inbox.id) : '');
  const [strategy, setStrategy] = useState<Strategy>(queue?.strategy ?? 'round_robin');
  const [active, setActive] = useState(queue?.active ?? true);
  const [picks, setPicks] = useState<Record<string, Pick>>(() =>
    Object.fromEntries(
      (queue?.members ?? []).map((m) => [
        m.membership.documentId,
        { on: true, weight: String(m.weight), active: m.active },
      ]),
    ),
  );
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const pickOf = (id: string): Pick => picks[id] ?? { on: false, weight: '1', active: true };
  const setPick = (id: string, patch: Partial<Pick>) =>
    setPicks({ ...picks, [id]: { ...pickOf(id), ...patch } });
  // An inbox queue takes no viewers (they cannot answer); a board queue takes anyone who may hold its cards.
  const people = (memberships.data ?? []).filter((m) => target === 'board' || m.role !== 'viewer');

  const save = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setGeneral('');
    const members = people
      .filter((m) => pickOf(m.documentId).on)
      .map((m) => {
        const p = pickOf(m.documentId);
        return { membership: m.documentId, weight: Math.max(1, Number(p.weight) || 1), active: p.active };
      });
    const bad: Record<string, string> = {};
    if (!members.length) bad.members = dw('pickMembers');
    if (!queue && !(target === 'board' ? board : inbox)) bad.target = dw('pickTarget');
    if (Object.keys(bad).length) {
      setErrors(bad);
      return;
    }
    setBusy(true);
    try {
      if (queue)
        await unwrap(
          client.PUT('/api/distribution-queues/{id}', {
            params: { path: { id: queue.documentId } },
            body: { data: { name, strategy, active, members } },
          }),
        );
      else
        await unwrap(
          client.POST('/api/distribution-queues', {
            body: {
              data: {
                name,
                strategy,
                active,
                members,
                ...(target === 'board' ? { board } : { inbox: Number(inbox) }),
              },
            },
          }),
        );
      toast(dw('saved'));
      await qc.invalidateQueries({ queryKey: ['distribution-queues'] });
      onClose();
    } catch (err) {
      const r = refusalOf(err, ['name', 'board', 'inbox', 'members', 'strategy'], (m) =>
        /taken|already/i.test(m) ? dw('oneQueueEach') : null,
      );
      const { board: b, inbox: i, ...rest } = r.fields;
      setErrors({ ...rest, ...(b || i ? { target: b || i } : {}) });
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open
      wide
      title={queue ? dw('editQueue') : dw('newQueue')}
      onClose={onClose}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {dw('cancel')}
          </Button>
          <Button submit busy={busy} form="queue-form">
            {dw('save')}
          </Button>
        </>
      }
    >
      <form id="queue-form" class="mkt-form" noValidate onSubmit={save}>
        <Field label={dw('name')} required error={errors.name}>
          <input
            name="queue-name"
            maxLength={120}
            value={name}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
        </Field>
        <fieldset>
          <legend>{dw('target')}</legend>
          {queue ? (
            <p>
              <strong>
                {queue.board
                  ? dw('boardOf', { name: queue.board.name })
                  : dw('inboxOf', { name: queue.inbox?.name ?? '' })}
              </strong>
              <br />
              <span class="muted small">{dw('targetFixed')}</span>
            </p>
          ) : (
            <>
              <label class="mkt-check">
                <input
                  type="radio"
                  name="queue-target"
                  value="board"
                  checked={target === 'board'}
                  onChange={() => setTarget('board')}
                />{' '}
                {dw('targetBoard')}
              </label>
              {(inboxes.data?.length ?? 0) > 0 && (
                <label class="mkt-check">
                  <input
                    type="radio"
                    name="queue-target"
                    value="inbox"
                    checked={target === 'inbox'}
                    onChange={() => setTarget('inbox')}
                  />{' '}
                  {dw('targetInbox')}
                </label>
              )}
              {target === 'board' ? (
                <Field label={dw('board')} required error={errors.target}>
                  <select
                    name="queue-board"
                    value={board}
                    onChange={(e) => setBoard((e.target as HTMLSelectElement).value)}
                  >
                    <option value="">{dw('pickBoard')}</option>
                    {(boards.data ?? []).map((b) => (
                      <option key={b.documentId} value={b.documentId}>
                        {b.name}
                      </option>
                    ))}
                  </select>
                </Field>
              ) : (
                <Field label={dw('inbox')} required error={errors.target}>
                  <select
                    name="queue-inbox"
                    value={inbox}
                    onChange={(e) => setInbox((e.target as HTMLSelectElement).value)}
                  >
                    <option value="">{dw('pickInbox')}</option>
                    {(inboxes.data ?? []).map((i) => (
                      <option key={i.id} value={String(i.id)}>
                        {i.name}
                      </option>
                    ))}
                  </select>
                </Field>
              )}
            </>
          )}
        </fieldset>
        <fieldset>
          <legend>{dw('strategy')}</legend>
          {STRATEGIES.map((s) => (
            <label key={s} class="mkt-check dist-strategy">
              <input
                type="radio"
                name="queue-strategy"
                value={s}
                checked={strategy === s}
                onChange={() => setStrategy(s)}
              />{' '}
              <span>
                <strong>{strategyWord(s)}</strong>
                <br />
                <span class="muted small">{dw(`sh_${s}`)}</span>
              </span>
            </label>
          ))}
        </fieldset>
        <fieldset class="dist-members">
          <legend>{dw('members')}</legend>
          <p class="muted small">{dw('membersHint')}</p>
          <ul class="plain">
            {people.map((m) => {
              const p = pickOf(m.documentId);
              const who = personName(m);
              return (
                <li key={m.documentId} class="dist-member" data-membership={m.documentId}>
                  <label class="mkt-check">
                    <input
                      type="checkbox"
                      name={`queue-member-${m.documentId}`}
                      aria-label={who}
                      checked={p.on}
                      onChange={(e) => setPick(m.documentId, { on: (e.target as HTMLInputElement).checked })}
                    />{' '}
                    <Avatar user={m.user} /> {who}
                  </label>
                  {p.on && (
                    <span class="dist-member-opts">
                      <label>
                        {dw('weight')}{' '}
                        <input
                          type="number"
                          min={1}
                          max={100}
                          name={`queue-weight-${m.documentId}`}
                          aria-label={dw('weightOf', { name: who })}
                          disabled={strategy !== 'weighted'}
                          value={p.weight}
                          onInput={(e) =>
                            setPick(m.documentId, { weight: (e.target as HTMLInputElement).value })
                          }
                        />
                      </label>
                      <label class="mkt-check">
                        <input
                          type="checkbox"
                          name={`queue-member-active-${m.documentId}`}
                          aria-label={dw('memberActiveOf', { name: who })}
                          checked={p.active}
                          onChange={(e) =>
                            setPick(m.documentId, { active: (e.target as HTMLInputElement).checked })
                          }
                        />{' '}
                        {dw('memberActive')}
                      </label>
                    </span>
                  )}
                </li>
              );
            })}
          </ul>
          {errors.members && (
            <p role="alert" class="error">
              {errors.members}
            </p>
          )}
        </fieldset>
        <label class="mkt-check">
          <input
            type="checkbox"
            name="queue-active"
            checked={active}
            onChange={(e) => setActive((e.target as HTMLInputElement).checked)}
          />{' '}
          {dw('active')}
        </label>
        {general && (
          <p role="alert" class="error">
            {general}
          </p>
        )}
      </form>
    </Dialog>
  );
}
