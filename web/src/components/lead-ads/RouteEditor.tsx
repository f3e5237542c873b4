import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { ApiError, type Board, client, reason, unwrap } from '../../api';
import { useBoardList } from '../../lib/board-queries';
import { fieldMessage } from '../../lib/errors';
import { Button, Dialog, Field, toast } from '../../ui';
import {
  type Channel,
  CONTACT_TARGETS,
  type Consent,
  type FormRoute,
  type Key,
  type LeadForm,
  lw,
  useIntegrations,
} from './model';

const val = (e: Event) => (e.target as HTMLInputElement).value;
const CHANNELS: Channel[] = ['whatsapp', 'email', 'sms'];

/** The entry phase: the one new cards enter (the lowest order). */
const entryPhase = (b: Board | undefined) => [...(b?.phases ?? [])].sort((x, y) => x.order - y.order)[0];

/** Create or change a form route: connection, form, board, where each answer goes, the consent checkbox. */
export function RouteEditor({ route, onClose }: { route: FormRoute | null; onClose: () => void }) {
  const qc = useQueryClient();
  const integrations = useIntegrations();
  const boards = useBoardList();
  const [name, setName] = useState(route?.name ?? '');
  const [integration, setIntegration] = useState(route?.leadIntegrationDocumentId ?? '');
  const [formId, setFormId] = useState(route?.leadFormId ?? '');
  const [boardId, setBoardId] = useState(route?.targetBoardDocumentId ?? '');
  /** source → target ('' not used). */
  const [mapping, setMapping] = useState<Record<string, string>>(
    Object.fromEntries((route?.fieldMapping.mappings ?? []).map((m) => [m.source, m.target])),
  );
  const [extra, setExtra] = useState('');
  const [consentOn, setConsentOn] = useState(!!route?.consentCapture);
  const [consent, setConsent] = useState<Consent>(
    route?.consentCapture ?? { field: '', channels: ['whatsapp', 'email'], purpose: 'marketing', text: '' },
  );
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const conn = integration || integrations.data?.[0]?.documentId || '';

  const forms = useQuery({
    queryKey: ['lead-forms', conn],
    enabled: !!conn,
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/lead-integrations/{id}/forms', { params: { path: { id: conn } } as never }),
        )
      ).data as unknown as LeadForm[],
  });
  const board = useQuery({
    queryKey: ['lead-board', boardId],
    enabled: !!boardId,
    queryFn: async () =>
      (await unwrap(
        client.GET('/api/boards/{id}', { params: { path: { id: boardId } } }),
      )) as unknown as Board,
  }).data;
  const form = forms.data?.find((f) => f.id === formId);
  const entry = entryPhase(board);
  const targets: [string, string][] = [
    ['title', lw('t_title')],
    ...CONTACT_TARGETS.map((c) => [`contact.${c}`, lw(`t_contact.${c}` as Key)] as [string, string]),
    ...(entry?.fields ?? [])
      .filter((f) => f.type !== 'statement')
      .map((f) => [f.slug, lw('t_field', { label: f.label })] as [string, string]),
  ];
  const questions = form?.questions ?? [];
  const sources = [
    ...questions.map((q) => ({ key: q.key, label: q.label ? `${q.label} (${q.key})` : q.key })),
    ...Object.keys(mapping)
      .filter((k) => !questions.some((q) => q.key === k))
      .map((k) => ({ key: k, label: k })),
  ];

  const save = async (ev: Event) => {
    ev.preventDefault();
    setErrors({});
    setGeneral('');
    if (consentOn && !consent.channels.length) return setErrors({ channels: lw('consentChannelsNeeded') });
    const data = {
      name,
      leadIntegrationDocumentId: conn,
      targetBoardDocumentId: boardId,
      leadFormId: formId,
      fieldMapping: {
        mappings: Object.entries(mapping)
          .filter(([, t]) => t)
          .map(([source, target]) => ({ source, target })),
      },
      consentCapture: consentOn ? consent : null,
    };
    setBusy(true);
    try {
      if (route)
        await unwrap(
          client.PUT('/api/lead-form-routes/{id}', {
            params: { path: { id: route.documentId } },
            body: { data: data as never },
          }),
        );
      else await unwrap(client.POST('/api/lead-form-routes', { body: { data: data as never } }));
      toast(lw('saved'));
      await qc.invalidateQueries({ queryKey: ['lead-form-routes'] });
      await qc.invalidateQueries({ queryKey: ['lead-integrations'] });
      onClose();
    } catch (err) {
      const list = (
        err instanceof ApiError && Array.isArray(err.details?.errors) ? err.details.errors : []
      ) as {
        path?: (string | number)[];
        message?: string;
      }[];
      const out: Record<string, string> = {};
      for (const e of list) {
        const path = (e.path ?? []).map(String).filter((x) => x !== 'data');
        let key = path[0] ?? '';
        if (key === 'fieldMapping') {
          const m = data.fieldMapping.mappings[Number(path[2])];
          key = m ? `map.${m.source}` : 'mapping';
        } else if (key === 'consentCapture') key = path[1] ?? 'consent';
        if (key && !out[key]) out[key] = fieldMessage(e.message);
      }
      setErrors(out);
      setGeneral(Object.keys(out).length ? '' : reason(err, board));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open
      wide
      title={route ? lw('editRoute') : lw('newRoute')}
      onClose={onClose}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {lw('cancel')}
          </Button>
          <Button submit busy={busy} form="lead-route-form">
            {lw('save')}
          </Button>
        </>
      }
    >
      <form id="lead-route-form" class="mkt-form" onSubmit={save}>
        <Field label={lw('routeName')} required error={errors.name}>
          <input name="route-name" maxLength={120} value={name} onInput={(e) => setName(val(e))} />
        </Field>
        <div class="mkt-row la-row">
          <Field label={lw('connection')} required error={errors.leadIntegrationDocumentId}>
            <select
              name="route-connection"
              value={conn}
              onChange={(e) => {
                setIntegration(val(e));
                setFormId('');
              }}
            >
              {(integrations.data ?? []).map((i) => (
                <option key={i.documentId} value={i.documentId}>
                  {i.name}
                </option>
              ))}
            </select>
          </Field>
          <Field
            label={lw('form')}
            required
            error={errors.leadFormId}
            hint={forms.isLoading ? lw('loadingForms') : forms.data?.length === 0 ? lw('noForms') : undefined}
          >
            <select name="route-form" value={formId} onChange={(e) => setFormId(val(e))}>
              <option value="">{lw('form')}…</option>
              {(forms.data ?? []).map((f) => (
                <option key={f.id} value={f.id}>
                  {lw('formOf', { form: f.name, page: f.pageName })}
                </option>
              ))}
            </select>
          </Field>
          <Field
            label={lw('board')}
            required
            error={errors.targetBoardDocumentId}
            hint={entry ? lw('boardPhase', { phase: entry.name }) : undefined}
          >
            <select name="route-board" value={boardId} onChange={(e) => setBoardId(val(e))}>
              <option value="">{lw('board')}…</option>
              {(boards.data ?? []).map((b) => (
                <option key={b.documentId} value={b.documentId}>
                  {b.name}
                </option>
              ))}
            </select>
          </Field>
        </div>
        {forms.error && (
          <p role="alert" class="error">
            {reason(forms.error)}
          </p>
        )}
        <fieldset class="auto-block" data-testid="route-mapping">
          <legend>{lw('mapping')}</legend>
          <p class="muted">{lw('mappingHint')}</p>
          {sources.map((s) => (
            <Field key={s.key} label={s.label} error={errors[`map.${s.key}`]}>
              <select
                name={`map-${s.key}`}
                value={mapping[s.key] ?? ''}
                onChange={(e) => setMapping({ ...mapping, [s.key]: val(e) })}
              >
                <option value="">{lw('notMapped')}</option>
                {targets.map(([v, label]) => (
                  <option key={v} value={v}>
                    {label}
                  </option>
                ))}
              </select>
            </Field>
          ))}
          <div class="mkt-row la-row">
            <Field label={lw('otherSource')}>
              <input name="map-extra" maxLength={200} value={extra} onInput={(e) => setExtra(val(e))} />
            </Field>
            <Button
              variant="secondary"
              onClick={() => {
                const k = extra.trim();
                if (k && !(k in mapping)) setMapping({ ...mapping, [k]: '' });
                setExtra('');
              }}
            >
              {lw('addMapping')}
            </Button>
          </div>
          {errors.mapping && (
            <p role="alert" class="error">
              {errors.mapping}
            </p>
          )}
        </fieldset>
        <fieldset class="auto-block" data-testid="route-consent">
          <legend>{lw('consent')}</legend>
          <label class="mkt-check">
            <input
              type="checkbox"
              name="consent-on"
              checked={consentOn}
              onChange={(e) => setConsentOn((e.target as HTMLInputElement).checked)}
            />{' '}
            {lw('consentOn')}
          </label>
          {consentOn && (
            <>
              <Field label={lw('consentField')} required error={errors.field}>
                <input
                  name="consent-field"
                  list="consent-questions"
                  maxLength={200}
                  value={consent.field}
                  onInput={(e) => setConsent({ ...consent, field: val(e) })}
                />
              </Field>
              <datalist id="consent-questions">
                {questions.map((q) => (
                  <option key={q.key} value={q.key}>
                    {q.label ?? q.key}
                  </option>
                ))}
              </datalist>
              <fieldset class="auto-radios">
                <legend>{lw('consentChannels')}</legend>
                {CHANNELS.map((c) => (
                  <label key={c} class="mkt-check">
                    <input
                      type="checkbox"
                      name={`consent-${c}`}
                      checked={consent.channels.includes(c)}
                      onChange={(e) =>
                        setConsent({
                          ...consent,
                          channels: (e.target as HTMLInputElement).checked
                            ? [...consent.channels, c]
                            : consent.channels.filter((x) => x !== c),
                        })
                      }
                    />{' '}
                    {lw(`ch_${c}`)}
                  </label>
                ))}
                {errors.channels && (
                  <p role="alert" class="error">
                    {errors.channels}
                  </p>
                )}
              </fieldset>
              <Field label={lw('consentPurpose')}>
                <select
                  name="consent-purpose"
                  value={consent.purpose}
                  onChange={(e) => setConsent({ ...consent, purpose: val(e) as Consent['purpose'] })}
                >
                  <option value="marketing">{lw('purpose_marketing')}</option>
                  <option value="transactional">{lw('purpose_transactional')}</option>
                </select>
              </Field>
              <Field label={lw('consentText')} hint={lw('consentTextHint')} required error={errors.text}>
                <textarea
                  name="consent-text"
                  rows={3}
                  maxLength={2000}
                  value={consent.text}
                  onInput={(e) => setConsent({ ...consent, text: val(e) })}
                />
              </Field>
            </>
          )}
        </fieldset>
        {general && (
          <p role="alert" class="error">
            {general}
          </p>
        )}
      </form>
    </Dialog>
  );
}
