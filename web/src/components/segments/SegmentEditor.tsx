import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'preact/hooks';
import { client, reason, unwrap } from '../../api';
import { refusalOf } from '../../lib/marketing';
import { personName } from '../../lib/people';
import { num } from '../../lib/words';
import { Button, Dialog, Field, toast } from '../../ui';
import {
  type ApiCondition,
  emptyIsRequired,
  fieldWord,
  gw,
  type Logic,
  operatorsOf,
  opWord,
  type Rule,
  type Segment,
  STRING_FIELDS,
  takesValue,
  toCondition,
  toRule,
  useFilterOptions,
} from './model';

/** Fields whose value is picked from a list rather than typed. */
const picked = (field: string) => field === 'owner' || field === 'team' || field === 'contact_type';

interface Preview {
  count: number;
  data: { documentId: string; name: string }[];
}

/**
 * A segment's name and rules, with the contacts they match now: each change of the rules goes (after a short
 * pause) to POST /segments/preview, which counts without saving.
 */
export function SegmentEditor({ segment, onClose }: { segment: Segment | null; onClose: () => void }) {
  const qc = useQueryClient();
  const options = useFilterOptions();
  const [name, setName] = useState(segment?.name ?? '');
  const [description, setDescription] = useState(segment?.description ?? '');
  const [active, setActive] = useState(segment?.active ?? true);
  const [logic, setLogic] = useState<Logic>(segment?.filters.logic ?? 'AND');
  const [rules, setRules] = useState<Rule[]>(
    segment ? segment.filters.conditions.map(toRule) : [{ field: 'city', op: 'contains', value: '' }],
  );
  const [required, setRequired] = useState<string[]>(segment?.requiredSegments ?? []);
  const [excluded, setExcluded] = useState<string[]>(segment?.excludedSegments ?? []);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [previewError, setPreviewError] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);

  const conditions = rules.map(toCondition).filter((c): c is ApiCondition => c !== null);
  const key = JSON.stringify([logic, conditions, required, excluded]);
  useEffect(() => {
    if (!conditions.length) {
      setPreview(null);
      setPreviewError('');
      return;
    }
    let live = true;
    const id = setTimeout(async () => {
      try {
        const r = (await unwrap(
          client.POST('/api/segments/preview', {
            body: {
              filters: { logic, conditions },
              requiredSegments: required,
              excludedSegments: excluded,
              pagination: { page: 1, pageSize: 5 },
            } as never,
          }),
        )) as unknown as Preview;
        if (!live) return;
        setPreview(r);
        setPreviewError('');
      } catch (err) {
        if (live) setPreviewError(reason(err));
      }
    }, 300);
    return () => {
      live = false;
      clearTimeout(id);
    };
  }, [key]);

  const upd = (i: number, patch: Partial<Rule>) =>
    setRules(
      rules.map((r, j) => {
        if (j !== i) return r;
        const next = { ...r, ...patch };
        // A new field: an operator it takes; a typed value stays for another typed field, a picked one (a
        // person, a team, a contact type) does not.
        if (patch.field !== undefined && patch.field !== r.field) {
          if (!operatorsOf(next.field).includes(next.op)) next.op = operatorsOf(next.field)[0];
          if (picked(r.field) || picked(next.field)) next.value = '';
        }
        return next;
      }),
    );

  const save = async (ev: Event) => {
    ev.preventDefault();
    setErrors({});
    setGeneral('');
    if (!conditions.length) {
      setGeneral(gw('needCondition'));
      return;
    }
    setBusy(true);
    const data = {
      name,
      description: description.trim() || null,
      active,
      filters: { logic, conditions },
      requiredSegments: required,
      excludedSegments: excluded,
    };
    try {
      if (segment) {
        await unwrap(
          client.PUT('/api/segments/{id}', {
            params: { path: { id: segment.documentId } },
            body: { data } as never,
          }),
        );
      } else {
        await unwrap(client.POST('/api/segments', { body: { data } as never }));
      }
      toast(gw('saved'));
      await qc.invalidateQueries({ queryKey: ['segments'] });
      await qc.invalidateQueries({ queryKey: ['segment-filter-options'] });
      onClose();
    } catch (err) {
      const r = refusalOf(err, ['name', 'description'], emptyIsRequired);
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };

  const opts = options.data;
  const others = (opts?.segments ?? []).filter((s) => s.documentId !== segment?.documentId);
  const toggle = (list: string[], set: (l: string[]) => void, id: string, on: boolean) =>
    set(on ? [...list.filter((x) => x !== id), id] : list.filter((x) => x !== id));
  return (
    <Dialog
      open
      wide
      title={segment ? gw('editSegment') : gw('newSegment')}
      onClose={onClose}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {gw('cancel')}
          </Button>
          <Button submit busy={busy} form="segment-form">
            {gw('save')}
          </Button>
        </>
      }
    >
      <form id="segment-form" class="mkt-form seg-form" onSubmit={save} noValidate>
        <Field label={gw('name')} required error={errors.name}>
          <input
            name="segment-name"
            maxLength={200}
            value={name}
            onInput={(e) => {
              setName((e.target as HTMLInputElement).value);
              if (errors.name) setErrors({ ...errors, name: '' });
            }}
          />
        </Field>
        <Field label={gw('description')} error={errors.description}>
          <textarea
            name="segment-description"
            rows={2}
            maxLength={2000}
            value={description}
            onInput={(e) => setDescription((e.target as HTMLTextAreaElement).value)}
          />
        </Field>
        <label class="mkt-check">
          <input
            type="checkbox"
            name="segment-active"
            checked={active}
            onChange={(e) => setActive((e.target as HTMLInputElement).checked)}
          />{' '}
          {gw('activeLabel')}
        </label>
        <Field label={gw('logic')}>
          <select
            name="segment-logic"
            value={logic}
            onChange={(e) => setLogic((e.target as HTMLSelectElement).value as Logic)}
          >
            <option value="AND">{gw('logic_AND')}</option>
            <option value="OR">{gw('logic_OR')}</option>
          </select>
        </Field>
        <ol class="seg-rules plain">
          {rules.map((r, i) => (
            <li key={i}>
              {i > 0 && (
                <span class="seg-join muted" aria-hidden="true">
                  {gw(logic === 'OR' ? 'join_OR' : 'join_AND')}
                </span>
              )}
              <fieldset class="seg-rule">
                <legend class="sr-only">{gw('condition', { n: i + 1 })}</legend>
                <label>
                  <span class="ds-label">{gw('field')}</span>
                  <select
                    name={`field-${i}`}
                    value={r.field}
                    onChange={(e) => upd(i, { field: (e.target as HTMLSelectElement).value })}
                  >
                    <optgroup label={gw('groupFields')}>
                      {STRING_FIELDS.map((f) => (
                        <option key={f} value={f}>
                          {fieldWord(f)}
                        </option>
                      ))}
                    </optgroup>
                    <optgroup label={gw('groupPeople')}>
                      <option value="owner">{fieldWord('owner')}</option>
                      <option value="team">{fieldWord('team')}</option>
                    </optgroup>
                    {!!opts?.customFields.keys.length && (
                      <optgroup label={gw('groupCustom')}>
                        {opts.customFields.keys.map((k) => (
                          <option key={k.slug} value={`custom:${k.slug}`}>
                            {fieldWord(`custom:${k.slug}`)}
                          </option>
                        ))}
                      </optgroup>
                    )}
                    {r.field.startsWith('custom:') &&
                      !opts?.customFields.keys.some((k) => `custom:${k.slug}` === r.field) && (
                        <option value={r.field}>{fieldWord(r.field)}</option>
                      )}
                  </select>
                </label>
                <label>
                  <span class="ds-label">{gw('operator')}</span>
                  <select
                    name={`op-${i}`}
                    value={r.op}
                    onChange={(e) => upd(i, { op: (e.target as HTMLSelectElement).value })}
                  >
                    {operatorsOf(r.field).map((o) => (
                      <option key={o} value={o}>
                        {opWord(r.field, o)}
                      </option>
                    ))}
                  </select>
                </label>
                {takesValue(r.op) && <ValueInput rule={r} index={i} onValue={(value) => upd(i, { value })} />}
                <Button
                  variant="ghost"
                  class="seg-remove"
                  disabled={rules.length === 1}
                  onClick={() => setRules(rules.filter((_, j) => j !== i))}
                  aria-label={gw('removeCondition', { n: i + 1 })}
                >
                  <span aria-hidden="true">×</span>
                </Button>
              </fieldset>
            </li>
          ))}
        </ol>
        <div>
          <Button
            variant="secondary"
            onClick={() => setRules([...rules, { field: 'name', op: 'contains', value: '' }])}
          >
            {gw('addCondition')}
          </Button>
        </div>
        {others.length > 0 && (
          <div class="mkt-row seg-links">
            {(
              [
                ['required', required, setRequired],
                ['excluded', excluded, setExcluded],
              ] as const
            ).map(([k, list, set]) => (
              <fieldset key={k} class="seg-linked">
                <legend>{gw(k)}</legend>
                {others.map((s) => (
                  <label key={s.documentId} class="mkt-check">
                    <input
                      type="checkbox"
                      name={`segment-${k}-${s.documentId}`}
                      checked={list.includes(s.documentId)}
                      onChange={(e) =>
                        toggle(list, set, s.documentId, (e.target as HTMLInputElement).checked)
                      }
                    />{' '}
                    {s.name}
                  </label>
                ))}
              </fieldset>
            ))}
          </div>
        )}
        <section class="seg-count" aria-live="polite" data-testid="segment-count">
          <h3>{gw('liveCount')}</h3>
          {!conditions.length || !preview ? (
            <p class="muted">{conditions.length ? '…' : gw('countNone')}</p>
          ) : (
            <>
              <p>
                <strong data-count={preview.count}>
                  {gw(preview.count === 1 ? 'countOne' : 'countMany', { n: num(preview.count) })}
                </strong>
              </p>
              {preview.data.length > 0 && (
                <p class="muted">
                  {gw('sample')}: {preview.data.map((c) => c.name).join(', ')}
                </p>
              )}
            </>
          )}
          {previewError && (
            <p role="alert" class="error">
              {previewError}
            </p>
          )}
        </section>
        {general && (
          <p role="alert" class="error">
            {general}
          </p>
        )}
      </form>
    </Dialog>
  );
}

/** The value of a rule: a person or a team picked by name, a contact type as a word, else typed text. */
function ValueInput({ rule, index, onValue }: { rule: Rule; index: number; onValue: (v: string) => void }) {
  const id = useId();
  return (
    <span class="seg-value">
      <label class="ds-label" for={id}>
        {gw('value')}
      </label>
      <ValueControl id={id} rule={rule} index={index} onValue={onValue} />
    </span>
  );
}

function ValueControl({
  id,
  rule,
  index,
  onValue,
}: {
  id: string;
  rule: Rule;
  index: number;
  onValue: (v: string) => void;
}) {
  const options = useFilterOptions();
  const change = (e: Event) => onValue((e.target as HTMLSelectElement | HTMLInputElement).value);
  if (rule.field === 'owner' || rule.field === 'team') {
    const people = rule.field === 'owner';
    const list = people
      ? (options.data?.owners ?? []).map((o) => ({ id: o.documentId, label: personName(o) }))
      : (options.data?.teams ?? []).map((t) => ({ id: t.documentId, label: t.name }));
    return (
      <select id={id} name={`value-${index}`} value={rule.value} onChange={change}>
        <option value="">{gw(people ? 'pickPerson' : 'pickTeam')}</option>
        {list.map((o) => (
          <option key={o.id} value={o.id}>
            {o.label}
          </option>
        ))}
      </select>
    );
  }
  if (rule.field === 'contact_type' && rule.op === 'eq') {
    return (
      <select id={id} name={`value-${index}`} value={rule.value} onChange={change}>
        <option value="">{gw('pickType')}</option>
        <option value="pessoa">{gw('type_pessoa')}</option>
        <option value="empresa">{gw('type_empresa')}</option>
      </select>
    );
  }
  return <input id={id} name={`value-${index}`} maxLength={500} value={rule.value} onInput={change} />;
}
