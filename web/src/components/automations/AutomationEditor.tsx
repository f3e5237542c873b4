import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { ApiError, type Board, client, reason, unwrap } from '../../api';
import { useBoardList } from '../../lib/board-queries';
import { fieldMessage } from '../../lib/errors';
import { Button, Dialog, Field, toast } from '../../ui';
import { type ActionDraft, ActionFields } from './ActionFields';
import {
  ACTION_TYPES,
  type Action,
  type ActionType,
  type Automation,
  actionWord,
  aw,
  BOARD_ACTIONS,
  CARD_ACTIONS,
  EVENTS,
  eventWord,
  FIELDS_OF,
  fieldWord,
  isCardEvent,
  NUMERIC_FIELDS,
  OPS,
  type Op,
  opWord,
  PHASE_FIELDS,
  useBoard,
  useMembers,
} from './model';

interface CondDraft {
  /** A known field of the event, or `other` with the dot path typed in `path`. */
  field: string;
  path: string;
  op: Op;
  value: string;
}

function toCondDraft(c: { field: string; op: Op; value?: unknown }, event: string): CondDraft {
  const known = (FIELDS_OF[event] ?? []).includes(c.field);
  return {
    field: known ? c.field : 'other',
    path: known ? '' : c.field,
    op: c.op,
    value: Array.isArray(c.value) ? c.value.join(', ') : c.value == null ? '' : String(c.value),
  };
}

function toDraft(a: Action): ActionDraft {
  const p = a.params ?? {};
  switch (a.type) {
    case 'set_field':
      return { type: a.type, p: { slug: p.slug, value: p.value == null ? '' : String(p.value) } };
    case 'set_due_date':
      return { type: a.type, p: { inHours: String(p.inHours ?? '') } };
    case 'assign':
      return { type: a.type, p: { ...p, by: p.distributionQueue ? 'queue' : 'member' } };
    case 'create_task':
      return {
        type: a.type,
        p: {
          name: p.name,
          dueInHours: p.dueInHours == null ? '' : String(p.dueInHours),
          assignees: p.assignees,
        },
      };
    case 'send_template_message':
      return { type: a.type, p: { ...p, params: (p.params ?? []).join('\n') } };
    case 'http_request':
      return {
        type: a.type,
        p: {
          url: p.url,
          method: p.method ?? 'POST',
          headers: Object.entries(p.headers ?? {})
            .map(([k, v]) => `${k}: ${v ?? ''}`)
            .join('\n'),
          body: p.body === undefined ? '' : JSON.stringify(p.body, null, 2),
        },
      };
    default:
      return { type: a.type, p: { ...p } };
  }
}

class DraftError extends Error {
  constructor(
    public key: string,
    message: string,
  ) {
    super(message);
  }
}

const hoursOf = (s: string, key: string, optional = false) => {
  if (optional && s.trim() === '') return undefined;
  const n = Number(s);
  if (s.trim() === '' || !Number.isFinite(n)) throw new DraftError(key, aw('numberNeeded'));
  return n;
};

/** The API's params of an action as the form holds it (its lists and numbers parsed; a bad one names its field). */
function fromDraft(d: ActionDraft, i: number, board: Board | null | undefined): Action {
  const p = d.p;
  switch (d.type) {
    case 'move_card':
      return { type: d.type, params: { phase: p.phase ?? '' } };
    case 'add_tag':
    case 'remove_tag':
      return { type: d.type, params: { tag: p.tag ?? '' } };
    case 'set_field': {
      const field = board?.phases.flatMap((x) => x.fields).find((f) => f.slug === p.slug);
      const numeric = field && ['number', 'currency', 'integer'].includes(field.type);
      const raw = p.value ?? '';
      const value = raw === '' ? null : numeric && Number.isFinite(Number(raw)) ? Number(raw) : raw;
      return { type: d.type, params: { slug: p.slug ?? '', value } };
    }
    case 'set_due_date':
      return { type: d.type, params: { inHours: hoursOf(p.inHours ?? '', `${i}.inHours`) } };
    case 'assign':
      return {
        type: d.type,
        params:
          p.by === 'queue'
            ? { distributionQueue: p.distributionQueue ?? '' }
            : { membership: p.membership ?? '' },
      };
    case 'create_task': {
      const due = hoursOf(p.dueInHours ?? '', `${i}.dueInHours`, true);
      return {
        type: d.type,
        params: {
          name: p.name ?? '',
          ...(due !== undefined ? { dueInHours: due } : {}),
          ...(p.assignees?.length ? { assignees: p.assignees } : {}),
        },
      };
    }
    case 'send_template_message': {
      const params = String(p.params ?? '')
        .split('\n')
        .map((x) => x.trim())
        .filter(Boolean);
      return {
        type: d.type,
        params: {
          channel: p.channel ?? '',
          template: p.template ?? '',
          ...(params.length ? { params } : {}),
          purpose: p.purpose ?? 'marketing',
        },
      };
    }
    case 'send_email':
      return { type: d.type, params: { template: p.template ?? '', purpose: p.purpose ?? 'marketing' } };
    case 'http_request': {
      const headers: Record<string, string> = {};
      for (const line of String(p.headers ?? '').split('\n')) {
        if (!line.trim()) continue;
        const at = line.indexOf(':');
        if (at < 1) throw new DraftError(`${i}.headers`, aw('headersInvalid'));
        // A stored value comes back as the mask (kept by the API); an empty one is a mistake, not a removal.
        const value = line.slice(at + 1).trim();
        if (!value) throw new DraftError(`${i}.headers`, aw('headersInvalid'));
        headers[line.slice(0, at).trim()] = value;
      }
      let body: unknown;
      if (String(p.body ?? '').trim()) {
        try {
          body = JSON.parse(p.body);
        } catch {
          throw new DraftError(`${i}.body`, aw('bodyInvalid'));
        }
      }
      return {
        type: d.type,
        params: {
          url: p.url ?? '',
          method: p.method ?? 'POST',
          ...(Object.keys(headers).length ? { headers } : {}),
          ...(body !== undefined ? { body } : {}),
        },
      };
    }
  }
}

function conditionValue(c: CondDraft): unknown {
  const field = c.field === 'other' ? c.path.trim() : c.field;
  if (c.op === 'exists') return undefined;
  if (c.op === 'in') return c.value.split(',').map((x) => x.trim());
  const numeric = ['gt', 'gte', 'lt', 'lte'].includes(c.op) || NUMERIC_FIELDS.has(field);
  return numeric && c.value.trim() !== '' && Number.isFinite(Number(c.value)) ? Number(c.value) : c.value;
}

/** The API's field errors keyed as the form names them: `name`, `board`, `c<i>.<part>`, `<i>.<param>`. */
function errorsOf(err: unknown): Record<string, string> {
  const list = (err instanceof ApiError && Array.isArray(err.details?.errors) ? err.details.errors : []) as {
    path?: (string | number)[];
    message?: string;
  }[];
  const out: Record<string, string> = {};
  for (const e of list) {
    const path = (e.path ?? []).map(String).filter((x) => x !== 'data');
    let key = '';
    if (path[0] === 'actions' && path.length >= 2)
      key = `${path[1]}.${path[3] === 'params' ? (path[4] ?? 'params') : (path[3] ?? path[2] ?? 'type')}`;
    else if (path[0] === 'trigger' && path[1] === 'conditions' && path[2] !== undefined)
      key = `c${path[2]}.${path[3] === 'field' ? 'field' : 'value'}`;
    else if (path[0] === 'name' || path[0] === 'board') key = path[0];
    else if (path[0] === 'actions') key = 'actions';
    // An internal or private address (details.rule public_address) said as such, not as a bare "invalid".
    const address = (e as { name?: string }).name === 'public_address';
    if (key && !out[key]) out[key] = address ? aw('urlRefused') : fieldMessage(e.message);
  }
  return out;
}

/** Create or change an automation: name, trigger (event, board, conditions) and actions, each as words. */
export function AutomationEditor({
  auto,
  onClose,
  onSecret,
}: {
  auto: Automation | null;
  onClose: () => void;
  onSecret: (s: string) => void;
}) {
  const qc = useQueryClient();
  const boards = useBoardList();
  const members = useMembers();
  const [name, setName] = useState(auto?.name ?? '');
  const [enabled, setEnabled] = useState(auto?.enabled ?? true);
  const [event, setEvent] = useState<string>(auto?.trigger.event ?? 'card.created');
  const [boardId, setBoardId] = useState(auto?.board?.documentId ?? '');
  const [conds, setConds] = useState<CondDraft[]>(
    (auto?.trigger.conditions ?? []).map((c) => toCondDraft(c, auto!.trigger.event)),
  );
  const [actions, setActions] = useState<ActionDraft[]>(
    auto?.actions.map(toDraft) ?? [{ type: 'move_card', p: {} }],
  );
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const cardEvent = isCardEvent(event);
  const board = useBoard(cardEvent && boardId ? boardId : null).data;
  const fields = FIELDS_OF[event] ?? [];
  const types = ACTION_TYPES.filter((t) => !CARD_ACTIONS.has(t) || (cardEvent && event !== 'card.deleted'));

  const setCond = (i: number, c: Partial<CondDraft>) =>
    setConds(conds.map((x, j) => (j === i ? { ...x, ...c } : x)));
  const setAction = (i: number, a: ActionDraft) => setActions(actions.map((x, j) => (j === i ? a : x)));

  const save = async (ev: Event) => {
    ev.preventDefault();
    setErrors({});
    setGeneral('');
    if (!actions.length) return setErrors({ actions: aw('needAction') });
    if (actions.some((a) => BOARD_ACTIONS.has(a.type)) && !boardId)
      return setErrors({ board: aw('needBoard') });
    let body: Record<string, unknown>;
    try {
      body = {
        name,
        enabled,
        board: cardEvent && boardId ? boardId : auto ? null : undefined,
        trigger: {
          event,
          conditions: conds.map((c) => ({
            field: c.field === 'other' ? c.path.trim() : c.field,
            op: c.op,
            ...(c.op === 'exists' ? {} : { value: conditionValue(c) }),
          })),
        },
        actions: actions.map((a, i) => fromDraft(a, i, board)),
      };
    } catch (err) {
      if (err instanceof DraftError) return setErrors({ [err.key]: err.message });
      throw err;
    }
    setBusy(true);
    try {
      if (auto) {
        await unwrap(
          client.PUT('/api/automations/{id}', {
            params: { path: { id: auto.documentId } },
            body: { data: body as never },
          }),
        );
      } else {
        const r = await unwrap(client.POST('/api/automations', { body: { data: body as never } }));
        if (actions.some((a) => a.type === 'http_request')) onSecret(r.secret);
      }
      toast(aw('saved'));
      await qc.invalidateQueries({ queryKey: ['automations'] });
      onClose();
    } catch (err) {
      const fe = errorsOf(err);
      setErrors(fe);
      setGeneral(Object.keys(fe).length ? '' : reason(err, board ?? undefined));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open
      wide
      title={auto ? aw('editAuto') : aw('newAuto')}
      onClose={onClose}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {aw('cancel')}
          </Button>
          <Button submit busy={busy} form="automation-form">
            {aw('save')}
          </Button>
        </>
      }
    >
      <form id="automation-form" class="mkt-form auto-form" onSubmit={save}>
        <Field label={aw('name')} required error={errors.name}>
          <input
            name="automation-name"
            maxLength={200}
            value={name}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
        </Field>
        <fieldset class="auto-block">
          <legend>{aw('when')}</legend>
          <div class="mkt-row">
            <Field label={aw('runEvent')} required>
              <select
                name="automation-event"
                value={event}
                onChange={(e) => {
                  const next = (e.target as HTMLSelectElement).value;
                  setEvent(next);
                  setConds(
                    conds.map((c) =>
                      c.field !== 'other' && !(FIELDS_OF[next] ?? []).includes(c.field)
                        ? { ...c, field: 'other', path: c.field }
                        : c,
                    ),
                  );
                }}
              >
                {EVENTS.map((e) => (
                  <option key={e} value={e}>
                    {eventWord(e)}
                  </option>
                ))}
              </select>
            </Field>
            <Field
              label={aw('board')}
              hint={cardEvent ? aw('boardHint') : aw('boardOnlyCards')}
              error={errors.board}
            >
              <select
                name="automation-board"
                value={cardEvent ? boardId : ''}
                disabled={!cardEvent}
                onChange={(e) => setBoardId((e.target as HTMLSelectElement).value)}
              >
                <option value="">{aw('anyBoard')}</option>
                {(boards.data ?? []).map((b) => (
                  <option key={b.documentId} value={b.documentId}>
                    {b.name}
                  </option>
                ))}
              </select>
            </Field>
          </div>
        </fieldset>
        <fieldset class="auto-block" data-testid="automation-conditions">
          <legend>{aw('conditions')}</legend>
          <p class="muted">{conds.length ? aw('conditionsHint') : aw('noConditions')}</p>
          {conds.map((c, i) => (
            <fieldset class="auto-item" key={i}>
              <legend class="sr-only">{aw('conditionN', { n: i + 1 })}</legend>
              <div class="mkt-row">
                <Field label={aw('field')} error={errors[`c${i}.field`]}>
                  <select
                    name={`condition-${i}-field`}
                    value={c.field}
                    onChange={(e) => setCond(i, { field: (e.target as HTMLSelectElement).value })}
                  >
                    {fields.map((f) => (
                      <option key={f} value={f}>
                        {fieldWord(f)}
                      </option>
                    ))}
                    <option value="other">{aw('f_other')}</option>
                  </select>
                </Field>
                {c.field === 'other' && (
                  <Field label={aw('otherPath')} hint={aw('otherPathHint')} required>
                    <input
                      name={`condition-${i}-path`}
                      value={c.path}
                      onInput={(e) => setCond(i, { path: (e.target as HTMLInputElement).value })}
                    />
                  </Field>
                )}
                <Field label={aw('op')}>
                  <select
                    name={`condition-${i}-op`}
                    value={c.op}
                    onChange={(e) => setCond(i, { op: (e.target as HTMLSelectElement).value as Op })}
                  >
                    {OPS.map((o) => (
                      <option key={o} value={o}>
                        {opWord(o)}
                      </option>
                    ))}
                  </select>
                </Field>
                {c.op !== 'exists' &&
                  (PHASE_FIELDS.has(c.field) && board && c.op !== 'in' ? (
                    <Field label={aw('value')} error={errors[`c${i}.value`]}>
                      <select
                        name={`condition-${i}-value`}
                        value={c.value}
                        onChange={(e) => setCond(i, { value: (e.target as HTMLSelectElement).value })}
                      >
                        <option value="">{aw('choose')}</option>
                        {board.phases.map((p) => (
                          <option key={p.documentId} value={p.slug}>
                            {p.name}
                          </option>
                        ))}
                      </select>
                    </Field>
                  ) : (
                    <Field
                      label={aw('value')}
                      hint={c.op === 'in' ? aw('valueListHint') : undefined}
                      error={errors[`c${i}.value`]}
                    >
                      <input
                        name={`condition-${i}-value`}
                        inputMode={['gt', 'gte', 'lt', 'lte'].includes(c.op) ? 'decimal' : undefined}
                        value={c.value}
                        onInput={(e) => setCond(i, { value: (e.target as HTMLInputElement).value })}
                      />
                    </Field>
                  ))}
              </div>
              <Button
                variant="ghost"
                onClick={() => setConds(conds.filter((_, j) => j !== i))}
                aria-label={aw('removeCondition', { n: i + 1 })}
              >
                {aw('removeShort')}
              </Button>
            </fieldset>
          ))}
          <Button
            variant="secondary"
            onClick={() =>
              setConds([
                ...conds,
                { field: fields[0] ?? 'other', path: '', op: fields[0] ? 'eq' : 'exists', value: '' },
              ])
            }
          >
            {aw('addCondition')}
          </Button>
        </fieldset>
        <fieldset class="auto-block" data-testid="automation-actions">
          <legend>{aw('actions')}</legend>
          {actions.map((a, i) => (
            <fieldset class="auto-item" key={i}>
              <legend class="sr-only">{aw('actionN', { n: i + 1 })}</legend>
              <Field label={aw('actionType')} error={errors[`${i}.type`]}>
                <select
                  name={`action-${i}-type`}
                  value={a.type}
                  onChange={(e) =>
                    setAction(i, { type: (e.target as HTMLSelectElement).value as ActionType, p: {} })
                  }
                >
                  {(types.includes(a.type) ? types : [a.type, ...types]).map((t) => (
                    <option key={t} value={t}>
                      {actionWord(t)}
                    </option>
                  ))}
                </select>
              </Field>
              <ActionFields
                a={a}
                n={i}
                set={(p) => setAction(i, { ...a, p })}
                board={board}
                members={members.data}
                errors={errors}
              />
              <span class="ds-actions">
                {i > 0 && (
                  <Button
                    variant="ghost"
                    onClick={() => {
                      const next = [...actions];
                      [next[i - 1], next[i]] = [next[i], next[i - 1]];
                      setActions(next);
                    }}
                    aria-label={aw('moveUp', { n: i + 1 })}
                  >
                    {aw('up')}
                  </Button>
                )}
                <Button
                  variant="ghost"
                  onClick={() => setActions(actions.filter((_, j) => j !== i))}
                  aria-label={aw('removeAction', { n: i + 1 })}
                >
                  {aw('removeShort')}
                </Button>
              </span>
            </fieldset>
          ))}
          {errors.actions && (
            <p role="alert" class="error">
              {errors.actions}
            </p>
          )}
          <Button
            variant="secondary"
            onClick={() => setActions([...actions, { type: types[0] ?? 'create_task', p: {} }])}
          >
            {aw('addAction')}
          </Button>
        </fieldset>
        <label class="mkt-check">
          <input
            type="checkbox"
            name="automation-enabled"
            checked={enabled}
            onChange={(e) => setEnabled((e.target as HTMLInputElement).checked)}
          />{' '}
          {aw('enabled')}
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
