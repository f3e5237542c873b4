import { useQuery } from '@tanstack/react-query';
import { type Board, client, type Ref, unwrap } from '../../api';
import { useChannels } from '../../lib/marketing';
import { personName } from '../../lib/people';
import { Field } from '../../ui';
import { type ActionType, aw, BOARD_ACTIONS } from './model';

/** An action as the form holds it: its type and its params as typed (strings, lists), turned into the API's on save. */
export interface ActionDraft {
  type: ActionType;
  p: Record<string, any>;
}

const val = (e: Event) => (e.target as HTMLInputElement).value;
/** A phase or tag the API may hold by slug, as the documentId the select lists. */
const refOf = (list: { documentId: string; slug: string }[], ref: string | undefined) =>
  list.find((x) => x.documentId === ref || x.slug === ref)?.documentId ?? '';

/** The fields one action type needs, each as words (phases, tags, fields and people by name). */
export function ActionFields({
  a,
  n,
  set,
  board,
  members,
  errors,
}: {
  a: ActionDraft;
  n: number;
  set: (p: Record<string, any>) => void;
  board: Board | null | undefined;
  members: Ref[] | undefined;
  errors: Record<string, string>;
}) {
  const up = (k: string) => (e: Event) => set({ ...a.p, [k]: val(e) });
  const err = (k: string) => errors[`${n}.${k}`];
  const name = (k: string) => `action-${n}-${k}`;
  if (BOARD_ACTIONS.has(a.type) && !board) return <p class="muted">{aw('pickBoardFirst')}</p>;
  switch (a.type) {
    case 'move_card':
      return (
        <Field label={aw('phase')} required error={err('phase')}>
          <select name={name('phase')} value={refOf(board!.phases, a.p.phase)} onChange={up('phase')}>
            <option value="">{aw('choose')}</option>
            {board!.phases.map((p) => (
              <option key={p.documentId} value={p.documentId}>
                {p.name}
              </option>
            ))}
          </select>
        </Field>
      );
    case 'add_tag':
    case 'remove_tag':
      return (
        <Field label={aw('tag')} required error={err('tag')}>
          <select name={name('tag')} value={refOf(board!.tags, a.p.tag)} onChange={up('tag')}>
            <option value="">{aw('choose')}</option>
            {board!.tags.map((t) => (
              <option key={t.documentId} value={t.documentId}>
                {t.name}
              </option>
            ))}
          </select>
        </Field>
      );
    case 'set_field': {
      const fields = board!.phases.flatMap((p) => p.fields).filter((f) => f.type !== 'statement');
      return (
        <div class="mkt-row">
          <Field label={aw('cardField')} required error={err('slug')}>
            <select name={name('slug')} value={a.p.slug ?? ''} onChange={up('slug')}>
              <option value="">{aw('choose')}</option>
              {fields.map((f) => (
                <option key={f.documentId} value={f.slug}>
                  {f.label}
                </option>
              ))}
            </select>
          </Field>
          <Field label={aw('fieldValue')} error={err('value')}>
            <input name={name('value')} value={a.p.value ?? ''} onInput={up('value')} />
          </Field>
        </div>
      );
    }
    case 'set_due_date':
      return (
        <Field label={aw('inHours')} required error={err('inHours')}>
          <input
            name={name('inHours')}
            type="number"
            min={0}
            step="any"
            inputMode="decimal"
            value={a.p.inHours ?? ''}
            onInput={up('inHours')}
          />
        </Field>
      );
    case 'assign':
      return <AssignFields a={a} n={n} set={set} members={members} err={err} />;
    case 'create_task':
      return (
        <>
          <Field label={aw('taskName')} required error={err('name')}>
            <input name={name('name')} maxLength={500} value={a.p.name ?? ''} onInput={up('name')} />
          </Field>
          <Field label={aw('dueInHours')} error={err('dueInHours')}>
            <input
              name={name('dueInHours')}
              type="number"
              min={0}
              step="any"
              inputMode="decimal"
              value={a.p.dueInHours ?? ''}
              onInput={up('dueInHours')}
            />
          </Field>
          <fieldset class="wh-events">
            <legend>{aw('assignees')}</legend>
            {(members ?? []).map((m) => {
              const list: string[] = a.p.assignees ?? [];
              return (
                <label key={m.documentId} class="mkt-check">
                  <input
                    type="checkbox"
                    name={`${name('assignee')}-${m.documentId}`}
                    checked={list.includes(m.documentId)}
                    onChange={(e) =>
                      set({
                        ...a.p,
                        assignees: (e.target as HTMLInputElement).checked
                          ? [...list, m.documentId]
                          : list.filter((x) => x !== m.documentId),
                      })
                    }
                  />{' '}
                  {personName(m)}
                </label>
              );
            })}
          </fieldset>
        </>
      );
    case 'send_template_message':
      return <TemplateFields a={a} n={n} set={set} err={err} />;
    case 'send_email':
      return <EmailFields a={a} n={n} set={set} err={err} />;
    case 'http_request':
      return (
        <>
          <Field label={aw('url')} required hint={aw('urlHint')} error={err('url')}>
            <input name={name('url')} type="url" maxLength={2000} value={a.p.url ?? ''} onInput={up('url')} />
          </Field>
          <Field label={aw('method')}>
            <select name={name('method')} value={a.p.method ?? 'POST'} onChange={up('method')}>
              {['POST', 'PUT', 'PATCH', 'GET', 'DELETE'].map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          </Field>
          <Field label={aw('headers')} hint={aw('headersHint')} error={err('headers')}>
            <textarea name={name('headers')} rows={3} value={a.p.headers ?? ''} onInput={up('headers')} />
          </Field>
          <Field label={aw('body')} hint={aw('bodyHint')} error={err('body')}>
            <textarea name={name('body')} rows={3} value={a.p.body ?? ''} onInput={up('body')} />
          </Field>
        </>
      );
  }
}

type Sub = {
  a: ActionDraft;
  n: number;
  set: (p: Record<string, any>) => void;
  err: (k: string) => string | undefined;
};

function AssignFields({ a, n, set, members, err }: Sub & { members: Ref[] | undefined }) {
  const queues = useQuery({
    queryKey: ['automation-queues'],
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/distribution-queues', {
            params: { query: { pagination: { pageSize: 100 } } as never },
          }),
        )
      ).data as unknown as { documentId: string; name: string }[],
  });
  const byQueue = a.p.by === 'queue';
  return (
    <>
      <fieldset class="auto-radios">
        <legend>{aw('assignTo')}</legend>
        {(['member', 'queue'] as const).map((k) => (
          <label key={k} class="mkt-check">
            <input
              type="radio"
              name={`action-${n}-by`}
              checked={(a.p.by ?? 'member') === k}
              onChange={() => set({ ...a.p, by: k })}
            />{' '}
            {k === 'member' ? aw('assignMember') : aw('assignQueue')}
          </label>
        ))}
      </fieldset>
      {byQueue ? (
        <Field label={aw('queue')} required error={err('distributionQueue')}>
          <select
            name={`action-${n}-queue`}
            value={a.p.distributionQueue ?? ''}
            onChange={(e) => set({ ...a.p, distributionQueue: val(e) })}
          >
            <option value="">{aw('choose')}</option>
            {(queues.data ?? []).map((q) => (
              <option key={q.documentId} value={q.documentId}>
                {q.name}
              </option>
            ))}
          </select>
        </Field>
      ) : (
        <Field label={aw('person')} required error={err('membership')}>
          <select
            name={`action-${n}-membership`}
            value={a.p.membership ?? ''}
            onChange={(e) => set({ ...a.p, membership: val(e) })}
          >
            <option value="">{aw('choose')}</option>
            {(members ?? []).map((m) => (
              <option key={m.documentId} value={m.documentId}>
                {personName(m)}
              </option>
            ))}
          </select>
        </Field>
      )}
    </>
  );
}

function PurposeField({ a, n, set }: Sub) {
  return (
    <Field label={aw('purpose')}>
      <select
        name={`action-${n}-purpose`}
        value={a.p.purpose ?? 'marketing'}
        onChange={(e) => set({ ...a.p, purpose: val(e) })}
      >
        <option value="marketing">{aw('purpose_marketing')}</option>
        <option value="transactional">{aw('purpose_transactional')}</option>
      </select>
    </Field>
  );
}

function TemplateFields(props: Sub) {
  const { a, n, set, err } = props;
  const channels = useChannels();
  const whatsapp = (channels.data ?? []).filter((c) => c.type === 'whatsapp');
  const templates = useQuery({
    queryKey: ['automation-templates', a.p.channel],
    enabled: !!a.p.channel,
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/chat-channels/{channelId}/templates', {
            params: { path: { channelId: a.p.channel }, query: { pagination: { pageSize: 100 } } as never },
          }),
        )
      ).data as unknown as { documentId: string; name: string; language: string }[],
  });
  return (
    <>
      <Field label={aw('channel')} required error={err('channel')}>
        <select
          name={`action-${n}-channel`}
          value={a.p.channel ?? ''}
          onChange={(e) => set({ ...a.p, channel: val(e), template: '' })}
        >
          <option value="">{aw('choose')}</option>
          {whatsapp.map((c) => (
            <option key={c.documentId} value={c.documentId}>
              {c.name}
            </option>
          ))}
        </select>
      </Field>
      <Field label={aw('template')} required error={err('template')}>
        <select
          name={`action-${n}-template`}
          value={a.p.template ?? ''}
          onChange={(e) => set({ ...a.p, template: val(e) })}
        >
          <option value="">{aw('choose')}</option>
          {(templates.data ?? []).map((t) => (
            <option key={t.documentId} value={t.documentId}>
              {t.name} ({t.language})
            </option>
          ))}
        </select>
      </Field>
      <Field label={aw('params')} hint={aw('paramsHint')} error={err('params')}>
        <textarea
          name={`action-${n}-params`}
          rows={2}
          value={a.p.params ?? ''}
          onInput={(e) => set({ ...a.p, params: val(e) })}
        />
      </Field>
      <PurposeField {...props} />
    </>
  );
}

function EmailFields(props: Sub) {
  const { a, n, set, err } = props;
  const templates = useQuery({
    queryKey: ['automation-email-templates'],
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/email-templates', {
            params: { query: { pagination: { pageSize: 100 } } as never },
          }),
        )
      ).data as unknown as { documentId: string; name: string }[],
  });
  return (
    <>
      <Field label={aw('emailTemplate')} required error={err('template')}>
        <select
          name={`action-${n}-template`}
          value={a.p.template ?? ''}
          onChange={(e) => set({ ...a.p, template: val(e) })}
        >
          <option value="">{aw('choose')}</option>
          {(templates.data ?? []).map((t) => (
            <option key={t.documentId} value={t.documentId}>
              {t.name}
            </option>
          ))}
        </select>
      </Field>
      <PurposeField {...props} />
    </>
  );
}
