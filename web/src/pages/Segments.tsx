import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'preact/hooks';
import { client, reason, unwrap } from '../api';
import { t } from '../i18n';
import { code, num, w } from '../lib/words';
import { canWrite } from '../session';

interface Cond {
  field: string;
  op: string;
  value: string;
}
interface Segment {
  documentId: string;
  name: string;
  contactCount?: number;
  filters: { logic: 'AND' | 'OR'; conditions: Cond[] };
}
const FIELDS = ['name', 'email', 'phone', 'city', 'state', 'country', 'contact_type', 'cpf', 'cnpj'];
const OPS = ['contains', 'eq', 'startsWith', 'endsWith', 'empty', 'notEmpty'];
const needsValue = (op: string) => op !== 'empty' && op !== 'notEmpty';

/** Segments with a live count: the builder's conditions go to POST /segments/preview as they change. */
export function SegmentsPage() {
  const qc = useQueryClient();
  const list = useQuery({
    queryKey: ['segments'],
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/segments', { params: { query: { pagination: { pageSize: 100 } } as never } }),
        )
      ).data as unknown as Segment[],
  });
  const [name, setName] = useState('');
  const [logic, setLogic] = useState<'AND' | 'OR'>('AND');
  const [conds, setConds] = useState<Cond[]>([{ field: 'city', op: 'contains', value: '' }]);
  const [count, setCount] = useState<number | null>(null);
  const [error, setError] = useState('');
  const filters = {
    logic,
    conditions: conds
      .filter((c) => !needsValue(c.op) || c.value.trim() !== '')
      .map((c) => (needsValue(c.op) ? c : { field: c.field, op: c.op })),
  };
  const key = JSON.stringify(filters);
  useEffect(() => {
    if (!filters.conditions.length) {
      setCount(null);
      return;
    }
    const id = setTimeout(async () => {
      try {
        const r = (await unwrap(
          client.POST('/api/segments/preview', {
            body: { filters, pagination: { page: 1, pageSize: 1 } } as never,
          }),
        )) as unknown as { count: number };
        setCount(r.count);
        setError('');
      } catch (err) {
        setError(reason(err));
      }
    }, 300);
    return () => clearTimeout(id);
  }, [key]);
  const save = async (e: Event) => {
    e.preventDefault();
    try {
      await unwrap(client.POST('/api/segments', { body: { data: { name, filters } } as never }));
      setName('');
      await qc.invalidateQueries({ queryKey: ['segments'] });
    } catch (err) {
      setError(reason(err));
    }
  };
  const upd = (i: number, patch: Partial<Cond>) =>
    setConds(conds.map((c, j) => (j === i ? { ...c, ...patch } : c)));
  return (
    <section class="page split">
      <div>
        <h1>{t('segments')}</h1>
        <ul class="plain">
          {list.data?.map((s) => (
            <li key={s.documentId}>
              <strong>{s.name}</strong>{' '}
              <span class="muted">
                {s.filters.conditions
                  .map((c) => `${code('cf', c.field)} ${code('op', c.op)} ${c.value ?? ''}`.trim())
                  .join(` ${code('join', s.filters.logic)} `)}
              </span>
            </li>
          ))}
        </ul>
      </div>
      <form class="card-form" onSubmit={save} aria-labelledby="seg-title">
        <h2 id="seg-title">{t('newSegment')}</h2>
        <label>
          {t('logic')}
          <select
            value={logic}
            onChange={(e) => setLogic((e.target as HTMLSelectElement).value as 'AND' | 'OR')}
          >
            <option value="AND">{w('logic_AND')}</option>
            <option value="OR">{w('logic_OR')}</option>
          </select>
        </label>
        {conds.map((c, i) => (
          <fieldset key={i} class="row">
            <legend class="sr-only">{`${t('field')} ${i + 1}`}</legend>
            <label>
              {t('field')}
              <select
                name={`field-${i}`}
                value={c.field}
                onChange={(e) => upd(i, { field: (e.target as HTMLSelectElement).value })}
              >
                {FIELDS.map((f) => (
                  <option key={f} value={f}>
                    {code('cf', f)}
                  </option>
                ))}
              </select>
            </label>
            <label>
              {t('operator')}
              <select
                name={`op-${i}`}
                value={c.op}
                onChange={(e) => upd(i, { op: (e.target as HTMLSelectElement).value })}
              >
                {OPS.map((o) => (
                  <option key={o} value={o}>
                    {code('op', o)}
                  </option>
                ))}
              </select>
            </label>
            {needsValue(c.op) && (
              <label>
                {t('value')}
                <input
                  name={`value-${i}`}
                  value={c.value}
                  onInput={(e) => upd(i, { value: (e.target as HTMLInputElement).value })}
                />
              </label>
            )}
            <button type="button" class="link" onClick={() => setConds(conds.filter((_, j) => j !== i))}>
              {t('remove')}
            </button>
          </fieldset>
        ))}
        <button
          type="button"
          onClick={() => setConds([...conds, { field: 'name', op: 'contains', value: '' }])}
        >
          {t('addCondition')}
        </button>
        <p class="live-count" aria-live="polite" data-testid="segment-count">
          <strong>{count === null ? '—' : num(count)}</strong> {t('matching')}
        </p>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        {canWrite() && (
          <>
            <label>
              {t('name')}
              <input required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
            </label>
            <button type="submit">{t('save')}</button>
          </>
        )}
      </form>
    </section>
  );
}
