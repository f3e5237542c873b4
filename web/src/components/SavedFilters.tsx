import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, reason, unwrap } from '../api';
import { wordsOf } from '../lib/area-words';
import { isOrgAdmin } from '../lib/board-access';
import type { CardFilters } from '../lib/card-filters';
import { refusalOf } from '../lib/marketing';
import { Button, confirmAction, Dialog, Field, toast } from '../ui';
import * as catalogue from '../words/board-work';

const kw = wordsOf(catalogue);

interface SavedFilter {
  documentId: string;
  name: string;
  board: { documentId: string } | null;
  query: { filters?: Record<string, any> };
  visibility: 'private' | 'organization';
}

const EMPTY: CardFilters = { q: '', tag: '', assignee: '' };

/**
 * A saved query as the Kanban's own filters when it names only what they set (title search, tag, assignee);
 * otherwise (a filter saved through the API with more) it is applied as it is, by `savedFilter`.
 */
export function fromSaved(f: SavedFilter): CardFilters {
  const { title, tags, assignees, ...rest } = f.query.filters ?? {};
  const q = title?.$containsi;
  const tag = tags?.documentId?.$eq;
  const assignee = assignees?.documentId?.$eq;
  const plain =
    Object.keys(rest).length === 0 &&
    (title === undefined || (typeof q === 'string' && Object.keys(title).length === 1)) &&
    (tags === undefined || typeof tag === 'string') &&
    (assignees === undefined || typeof assignee === 'string');
  if (!plain) return { ...EMPTY, saved: f.documentId };
  return { q: q ?? '', tag: tag ?? '', assignee: assignee ?? '' };
}

/** The Kanban's saved filters: pick one, save the current filters under a name (shared or not), delete one. */
export function SavedFilters(props: {
  boardId: string;
  filters: CardFilters;
  /** The list query of the current filters (Kanban's cardFilters). */
  query: Record<string, unknown>;
  writable: boolean;
  onApply: (f: CardFilters) => void;
}) {
  const qc = useQueryClient();
  const key = ['saved-filters', 'cards', props.boardId];
  const list = useQuery({
    queryKey: key,
    queryFn: async () =>
      (
        (
          await unwrap(
            client.GET('/api/saved-filters', {
              params: { query: { resource: 'cards', pagination: { pageSize: 100 } } as never },
            }),
          )
        ).data as unknown as SavedFilter[]
      ).filter((f) => f.board?.documentId === props.boardId),
  });
  const [chosen, setChosen] = useState('');
  const [saving, setSaving] = useState(false);
  const current = list.data?.find((f) => f.documentId === chosen);
  const { q, tag, assignee } = props.filters;
  const active = !!(q.trim() || tag || assignee);
  const remove = async () => {
    if (!current) return;
    const ok = await confirmAction({
      title: kw('deleteFilterTitle', { name: current.name }),
      confirmLabel: kw('delete'),
      danger: true,
    });
    if (!ok) return;
    try {
      await unwrap(
        client.DELETE('/api/saved-filters/{id}', { params: { path: { id: current.documentId } } }),
      );
      toast(kw('filterDeleted'));
      setChosen('');
      await qc.invalidateQueries({ queryKey: key });
    } catch (err) {
      toast(reason(err), 'error');
    }
  };
  const editable = current && (current.visibility === 'private' || isOrgAdmin());
  return (
    <span class="saved-filters">
      <label>
        <span class="sr-only">{kw('savedFilters')}</span>
        <select
          name="saved-filter"
          value={chosen}
          onChange={(e) => {
            const id = (e.target as HTMLSelectElement).value;
            setChosen(id);
            const f = list.data?.find((x) => x.documentId === id);
            props.onApply(f ? fromSaved(f) : EMPTY);
          }}
        >
          <option value="">{kw('savedFilters')}…</option>
          {list.data?.map((f) => (
            <option key={f.documentId} value={f.documentId}>
              {f.visibility === 'organization' ? kw('sharedName', { name: f.name }) : f.name}
            </option>
          ))}
        </select>
      </label>
      {props.writable && (
        <Button variant="secondary" disabled={!active} onClick={() => setSaving(true)}>
          {kw('saveFilter')}
        </Button>
      )}
      {props.writable && editable && (
        <Button variant="ghost" onClick={remove} aria-label={kw('deleteFilterOf', { name: current.name })}>
          {kw('delete')}
        </Button>
      )}
      {saving && (
        <SaveFilterDialog
          boardId={props.boardId}
          query={props.query}
          onClose={() => setSaving(false)}
          onSaved={async (f) => {
            await qc.invalidateQueries({ queryKey: key });
            setChosen(f.documentId);
          }}
        />
      )}
    </span>
  );
}

function SaveFilterDialog(props: {
  boardId: string;
  query: Record<string, unknown>;
  onClose: () => void;
  onSaved: (f: SavedFilter) => Promise<void>;
}) {
  const admin = isOrgAdmin();
  const [name, setName] = useState('');
  const [shared, setShared] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const save = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setGeneral('');
    setBusy(true);
    try {
      const f = (await unwrap(
        client.POST('/api/saved-filters', {
          body: {
            data: {
              name,
              resource: 'cards',
              board: props.boardId,
              query: { filters: props.query },
              visibility: shared ? 'organization' : 'private',
            },
          } as never,
        }),
      )) as unknown as SavedFilter;
      toast(kw('filterSaved', { name: f.name }));
      await props.onSaved(f);
      props.onClose();
    } catch (err) {
      const r = refusalOf(err, ['name']);
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open
      title={kw('saveFilterTitle')}
      onClose={props.onClose}
      footer={
        <>
          <Button variant="secondary" onClick={props.onClose}>
            {kw('cancel')}
          </Button>
          <Button submit busy={busy} form="save-filter-form">
            {kw('save')}
          </Button>
        </>
      }
    >
      <form id="save-filter-form" noValidate onSubmit={save}>
        <Field label={kw('filterName')} required error={errors.name}>
          <input
            name="filter-name"
            maxLength={120}
            value={name}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
        </Field>
        <label class="mkt-check">
          <input
            type="checkbox"
            name="filter-shared"
            checked={shared}
            disabled={!admin}
            onChange={(e) => setShared((e.target as HTMLInputElement).checked)}
          />{' '}
          {kw('shareWithOrg')}
        </label>
        {!admin && <p class="muted small">{kw('shareAdminsOnly')}</p>}
        {general && (
          <p role="alert" class="error">
            {general}
          </p>
        )}
      </form>
    </Dialog>
  );
}
