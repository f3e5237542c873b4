import { useState } from 'preact/hooks';
import { type Board, client, type Field as FieldDef, unwrap } from '../../api';
import { refusalOf } from '../../lib/marketing';
import { list } from '../../lib/words';
import { Badge, Button, confirmAction, Dialog, Field, toast } from '../../ui';
import { useConditions } from '../NewCard';
import {
  bw,
  type ConditionRow,
  OPERATORS,
  OPTION_TYPES,
  opWord,
  ordered,
  structureRefusal,
  useStructureRefresh,
} from './shared';

interface Expr {
  fieldSlug: string;
  operator: string;
  /** The value as typed (a list comma-separated; yes/no as true/false); made typed on save. */
  raw: string;
}
interface Action {
  type: 'show' | 'hide';
  targetFieldSlugs: string[];
}

const NO_VALUE = ['empty', 'notEmpty'];
const LIST_OPS = ['in', 'notIn'];
const YES_NO = ['checkbox', 'switch'];
const NUMERIC = ['number', 'currency'];

const boardFields = (b: Board) => ordered(b).flatMap((p) => p.fields);
const optionsOf = (f?: FieldDef) =>
  (f?.options ?? []).map((o) => (typeof o === 'string' ? { value: o, label: o } : o));

const rawOf = (v: unknown) => (Array.isArray(v) ? v.join(', ') : v == null ? '' : String(v));

/** The typed value of an expression: none, a list, a yes/no, a number, or text. */
function typed(e: Expr, f?: FieldDef): unknown {
  if (NO_VALUE.includes(e.operator)) return undefined;
  const one = (s: string): unknown => {
    if (f && YES_NO.includes(f.type)) return s === 'true';
    if (f && NUMERIC.includes(f.type) && s.trim() !== '' && Number.isFinite(Number(s))) return Number(s);
    return s;
  };
  if (LIST_OPS.includes(e.operator))
    return e.raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map(one);
  return one(e.raw.trim());
}

/** A condition in one line: "Se A é igual a x e B está vazio → mostrar C". */
function summary(c: ConditionRow, b: Board) {
  const labels = new Map(boardFields(b).map((f) => [f.slug, f.label]));
  const name = (s: string) => labels.get(s) ?? s;
  const when = c.criteria
    .map((g) =>
      g.expressions
        .map((e) =>
          [name(e.fieldSlug), opWord(e.operator), NO_VALUE.includes(e.operator) ? '' : rawOf(e.value)]
            .filter(Boolean)
            .join(' '),
        )
        .join(` ${bw('and')} `),
    )
    .join(` ${bw('or')} `);
  const acts = (l: Action[]) =>
    l
      .map((a) => `${bw(a.type === 'show' ? 'show' : 'hide')} ${list(a.targetFieldSlugs.map(name))}`)
      .join('; ');
  const yes = acts(c.actionsWhenTrue);
  const no = acts(c.actionsWhenFalse);
  return `${bw('if')} ${when}${yes ? ` → ${yes}` : ''}${no ? ` (${bw('otherwise')} ${no})` : ''}`;
}

/** The board's show/hide conditions on fields: listed in words, added, edited, deleted. */
export function ConditionsSection({ board: b }: { board: Board }) {
  const refresh = useStructureRefresh(b.documentId);
  const conditions = useConditions(b.documentId);
  const rows = (conditions.data ?? []) as ConditionRow[];
  const [editing, setEditing] = useState<ConditionRow | 'new' | null>(null);
  const [error, setError] = useState('');
  const remove = async (c: ConditionRow) => {
    const ok = await confirmAction({
      title: bw('deleteConditionTitle', { name: c.name }),
      confirmLabel: bw('delete'),
      danger: true,
    });
    if (!ok) return;
    setError('');
    try {
      await unwrap(
        client.DELETE('/api/boards/{boardId}/field-conditions/{id}', {
          params: { path: { boardId: b.documentId, id: c.documentId } },
        }),
      );
      toast(bw('conditionDeleted', { name: c.name }));
      await refresh();
    } catch (err) {
      setError(structureRefusal(err, b));
    }
  };
  const noFields = boardFields(b).length === 0;
  return (
    <section class="be-section" id="be-conditions" aria-labelledby="be-conditions-h">
      <h2 id="be-conditions-h">{bw('secConditions')}</h2>
      <p class="muted">{bw('conditionsIntro')}</p>
      {rows.length === 0 && !conditions.isLoading && <p class="muted">{bw('noConditions')}</p>}
      <ul class="be-list">
        {rows.map((c) => (
          <li key={c.documentId} class="be-item be-condition">
            <span class="be-field-name">
              <strong>{c.name}</strong>{' '}
              <Badge tone={c.enabled ? 'success' : 'neutral'}>{bw(c.enabled ? 'on' : 'off')}</Badge>{' '}
              <span class="muted small">
                {c.scope === 'board' ? bw('scopeBoard') : bw('scopePhaseOf', { phase: c.phase?.name ?? '' })}
              </span>
              <span class="be-summary">{summary(c, b)}</span>
            </span>
            <span class="ds-actions">
              <Button
                variant="secondary"
                onClick={() => setEditing(c)}
                aria-label={bw('editConditionOf', { name: c.name })}
              >
                {bw('edit')}
              </Button>
              <Button
                variant="ghost"
                onClick={() => remove(c)}
                aria-label={bw('deleteConditionOf', { name: c.name })}
              >
                {bw('delete')}
              </Button>
            </span>
          </li>
        ))}
      </ul>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <Button variant="secondary" disabled={noFields} onClick={() => setEditing('new')}>
        {bw('addCondition')}
      </Button>
      {noFields && <p class="muted small">{bw('conditionsNeedFields')}</p>}
      {editing && (
        <ConditionDialog
          key={editing === 'new' ? 'new' : editing.documentId}
          board={b}
          condition={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
        />
      )}
    </section>
  );
}

function ConditionDialog(props: { board: Board; condition: ConditionRow | null; onClose: () => void }) {
  const { board: b, condition: c } = props;
  const refresh = useStructureRefresh(b.documentId);
  const fields = boardFields(b);
  const phases = ordered(b);
  const first = fields[0]?.slug ?? '';
  const [name, setName] = useState(c?.name ?? '');
  const [scope, setScope] = useState<'phase' | 'board'>(c?.scope ?? 'board');
  const [phase, setPhase] = useState(c?.phase?.documentId ?? phases[0]?.documentId ?? '');
  const [enabled, setEnabled] = useState(c?.enabled ?? true);
  const [groups, setGroups] = useState<Expr[][]>(
    c?.criteria.map((g) =>
      g.expressions.map((e) => ({ fieldSlug: e.fieldSlug, operator: e.operator, raw: rawOf(e.value) })),
    ) ?? [[{ fieldSlug: first, operator: 'eq', raw: '' }]],
  );
  const [whenTrue, setWhenTrue] = useState<Action[]>(
    c?.actionsWhenTrue ?? [{ type: 'show', targetFieldSlugs: [] }],
  );
  const [whenFalse, setWhenFalse] = useState<Action[]>(c?.actionsWhenFalse ?? []);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const fieldOf = (slug: string) => fields.find((f) => f.slug === slug);
  const setExpr = (gi: number, ei: number, patch: Partial<Expr>) =>
    setGroups(groups.map((g, i) => (i !== gi ? g : g.map((e, j) => (j !== ei ? e : { ...e, ...patch })))));
  const save = async (ev: Event) => {
    ev.preventDefault();
    setErrors({});
    setGeneral('');
    setBusy(true);
    const clean = (l: Action[]) => l.filter((a) => a.targetFieldSlugs.length > 0);
    const data = {
      name,
      scope,
      phase: scope === 'phase' ? phase : null,
      enabled,
      criteria: groups
        .filter((g) => g.length)
        .map((g) => ({
          expressions: g.map((e) => {
            const value = typed(e, fieldOf(e.fieldSlug));
            return {
              fieldSlug: e.fieldSlug,
              operator: e.operator,
              ...(value === undefined ? {} : { value }),
            };
          }),
        })),
      actionsWhenTrue: clean(whenTrue),
      actionsWhenFalse: clean(whenFalse),
    };
    try {
      if (c)
        await unwrap(
          client.PUT('/api/boards/{boardId}/field-conditions/{id}', {
            params: { path: { boardId: b.documentId, id: c.documentId } },
            body: { data } as never,
          }),
        );
      else
        await unwrap(
          client.POST('/api/boards/{boardId}/field-conditions', {
            params: { path: { boardId: b.documentId } },
            body: { data } as never,
          }),
        );
      toast(bw('conditionSaved', { name }));
      await refresh();
      props.onClose();
    } catch (err) {
      const r = refusalOf(err, ['name']);
      setErrors(r.fields);
      setGeneral(r.general || structureRefusal(err, b));
      if (r.fields.name) setGeneral('');
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open
      wide
      title={c ? bw('editCondition', { name: c.name }) : bw('addCondition')}
      onClose={props.onClose}
      footer={
        <>
          <Button variant="secondary" onClick={props.onClose}>
            {bw('cancel')}
          </Button>
          <Button submit busy={busy} form="condition-form">
            {bw('save')}
          </Button>
        </>
      }
    >
      <form id="condition-form" noValidate onSubmit={save} class="be-condition-form">
        <div class="be-grid">
          <Field label={bw('conditionName')} required error={errors.name}>
            <input
              name="condition-name"
              maxLength={120}
              value={name}
              onInput={(e) => setName((e.target as HTMLInputElement).value)}
            />
          </Field>
          <Field label={bw('scope')}>
            <select
              name="condition-scope"
              value={scope}
              onChange={(e) => setScope((e.target as HTMLSelectElement).value as 'phase' | 'board')}
            >
              <option value="board">{bw('scopeBoard')}</option>
              <option value="phase">{bw('scopePhase')}</option>
            </select>
          </Field>
          {scope === 'phase' && (
            <Field label={bw('fieldPhase')}>
              <select
                name="condition-phase"
                value={phase}
                onChange={(e) => setPhase((e.target as HTMLSelectElement).value)}
              >
                {phases.map((p) => (
                  <option key={p.documentId} value={p.documentId}>
                    {p.name}
                  </option>
                ))}
              </select>
            </Field>
          )}
          <label class="mkt-check">
            <input
              type="checkbox"
              name="condition-enabled"
              checked={enabled}
              onChange={(e) => setEnabled((e.target as HTMLInputElement).checked)}
            />{' '}
            {bw('conditionEnabled')}
          </label>
        </div>
        <fieldset class="be-criteria">
          <legend>{bw('when')}</legend>
          {groups.map((g, gi) => (
            <div key={gi} class="be-group">
              {gi > 0 && <p class="be-or">{bw('orGroup')}</p>}
              {g.map((e, ei) => (
                <ExpressionRow
                  key={ei}
                  expr={e}
                  index={`${gi + 1}.${ei + 1}`}
                  fields={fields}
                  onChange={(patch) => setExpr(gi, ei, patch)}
                  onRemove={() =>
                    setGroups(
                      groups
                        .map((x, i) => (i !== gi ? x : x.filter((_, j) => j !== ei)))
                        .filter((x) => x.length),
                    )
                  }
                />
              ))}
              <Button
                variant="ghost"
                onClick={() =>
                  setGroups(
                    groups.map((x, i) =>
                      i !== gi ? x : [...x, { fieldSlug: first, operator: 'eq', raw: '' }],
                    ),
                  )
                }
              >
                + {bw('andExpr')}
              </Button>
            </div>
          ))}
          <Button
            variant="ghost"
            onClick={() => setGroups([...groups, [{ fieldSlug: first, operator: 'eq', raw: '' }]])}
          >
            + {bw('orExpr')}
          </Button>
        </fieldset>
        <ActionsEditor
          legend={bw('thenDo')}
          name="true"
          actions={whenTrue}
          fields={fields}
          onChange={setWhenTrue}
        />
        <ActionsEditor
          legend={bw('elseDo')}
          name="false"
          actions={whenFalse}
          fields={fields}
          onChange={setWhenFalse}
        />
        {general && (
          <p role="alert" class="error">
            {general}
          </p>
        )}
      </form>
    </Dialog>
  );
}

function ExpressionRow(props: {
  expr: Expr;
  index: string;
  fields: FieldDef[];
  onChange: (p: Partial<Expr>) => void;
  onRemove: () => void;
}) {
  const { expr: e, index } = props;
  const f = props.fields.find((x) => x.slug === e.fieldSlug);
  const opts = optionsOf(f);
  const single = !NO_VALUE.includes(e.operator) && !LIST_OPS.includes(e.operator);
  let valueControl = null;
  if (NO_VALUE.includes(e.operator)) valueControl = null;
  else if (f && YES_NO.includes(f.type) && single)
    valueControl = (
      <select
        name={`cond-value-${index}`}
        aria-label={bw('valueOf', { n: index })}
        value={e.raw}
        onChange={(x) => props.onChange({ raw: (x.target as HTMLSelectElement).value })}
      >
        <option value="true">{bw('yes')}</option>
        <option value="false">{bw('no')}</option>
      </select>
    );
  else if (opts.length && single && OPTION_TYPES.includes(f?.type ?? ''))
    valueControl = (
      <select
        name={`cond-value-${index}`}
        aria-label={bw('valueOf', { n: index })}
        value={e.raw}
        onChange={(x) => props.onChange({ raw: (x.target as HTMLSelectElement).value })}
      >
        <option value="">—</option>
        {opts.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    );
  else
    valueControl = (
      <input
        name={`cond-value-${index}`}
        aria-label={bw('valueOf', { n: index })}
        placeholder={LIST_OPS.includes(e.operator) ? bw('listHint') : undefined}
        value={e.raw}
        onInput={(x) => props.onChange({ raw: (x.target as HTMLInputElement).value })}
      />
    );
  return (
    <div class="be-expr">
      <select
        name={`cond-field-${index}`}
        aria-label={bw('fieldOf', { n: index })}
        value={e.fieldSlug}
        onChange={(x) => props.onChange({ fieldSlug: (x.target as HTMLSelectElement).value, raw: '' })}
      >
        {props.fields.map((x) => (
          <option key={x.slug} value={x.slug}>
            {x.label}
          </option>
        ))}
      </select>
      <select
        name={`cond-op-${index}`}
        aria-label={bw('operatorOf', { n: index })}
        value={e.operator}
        onChange={(x) => {
          const operator = (x.target as HTMLSelectElement).value;
          const yesNo = f && YES_NO.includes(f.type);
          props.onChange({ operator, raw: yesNo && !e.raw ? 'true' : e.raw });
        }}
      >
        {OPERATORS.map((o) => (
          <option key={o} value={o}>
            {opWord(o)}
          </option>
        ))}
      </select>
      {valueControl}
      <Button variant="ghost" onClick={props.onRemove} aria-label={bw('removeExprOf', { n: index })}>
        <span aria-hidden="true">×</span>
      </Button>
    </div>
  );
}

function ActionsEditor(props: {
  legend: string;
  name: string;
  actions: Action[];
  fields: FieldDef[];
  onChange: (l: Action[]) => void;
}) {
  const { actions } = props;
  const set = (i: number, a: Action) => props.onChange(actions.map((x, j) => (j === i ? a : x)));
  return (
    <fieldset class="be-actions-edit">
      <legend>{props.legend}</legend>
      {actions.map((a, i) => (
        <div key={i} class="be-action">
          <select
            name={`action-${props.name}-${i}`}
            aria-label={bw('actionOf', { n: i + 1 })}
            value={a.type}
            onChange={(e) => set(i, { ...a, type: (e.target as HTMLSelectElement).value as Action['type'] })}
          >
            <option value="show">{bw('showFields')}</option>
            <option value="hide">{bw('hideFields')}</option>
          </select>
          <span class="be-targets">
            {props.fields.map((f) => (
              <label key={f.slug} class="mkt-check">
                <input
                  type="checkbox"
                  name={`target-${props.name}-${i}-${f.slug}`}
                  checked={a.targetFieldSlugs.includes(f.slug)}
                  onChange={(e) =>
                    set(i, {
                      ...a,
                      targetFieldSlugs: (e.target as HTMLInputElement).checked
                        ? [...a.targetFieldSlugs, f.slug]
                        : a.targetFieldSlugs.filter((s) => s !== f.slug),
                    })
                  }
                />{' '}
                {f.label}
              </label>
            ))}
          </span>
          <Button
            variant="ghost"
            onClick={() => props.onChange(actions.filter((_, j) => j !== i))}
            aria-label={bw('removeActionOf', { n: i + 1 })}
          >
            <span aria-hidden="true">×</span>
          </Button>
        </div>
      ))}
      <Button
        variant="ghost"
        onClick={() => props.onChange([...actions, { type: 'show', targetFieldSlugs: [] }])}
      >
        + {bw('addAction')}
      </Button>
    </fieldset>
  );
}
