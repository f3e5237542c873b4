import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, reason, unwrap } from '../../api';
import { num } from '../../lib/words';
import { Button, type Column, DataTable, Dialog, toast } from '../../ui';
import { type Contact, cw, fieldWord, valueText } from './shared';

/** What a merge fills from the merged contacts when the survivor has it empty (contacts service, MERGE_FILL). */
const FILLED = [
  'email',
  'phone',
  'cpf',
  'cnpj',
  'address',
  'city',
  'state',
  'country',
  'postal_code',
  'birthdate',
  'first_buy_date',
  'owner',
  'team',
];
const ROWS = ['name', 'contact_type', ...FILLED];

/**
 * Merges the selected contacts (POST /contacts/merge): the person picks the one that stays and sees, field by
 * field, what the result keeps — the survivor's value, or an empty one filled from another contact.
 */
export function MergeDialog({
  contacts,
  onClose,
  onMerged,
}: {
  contacts: Contact[];
  onClose: () => void;
  onMerged: (c: Contact) => void;
}) {
  const qc = useQueryClient();
  const [survivor, setSurvivor] = useState(contacts[0].documentId);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const keep = contacts.find((c) => c.documentId === survivor) ?? contacts[0];
  const others = contacts.filter((c) => c !== keep);
  /** The result's value of a field and, when filled from another contact, that contact. */
  const result = (field: string): { text: string; from?: Contact } => {
    const own = valueText(keep, field);
    if (own || !FILLED.includes(field)) return { text: own };
    const donor = others.find((o) => valueText(o, field));
    return donor ? { text: valueText(donor, field), from: donor } : { text: '' };
  };
  const columns: Column<string>[] = [
    { key: 'field', label: cw('field'), render: (f) => <strong>{fieldWord(f)}</strong> },
    ...contacts.map((c) => ({
      key: c.documentId,
      label: c.name,
      render: (f: string) => valueText(c, f) || '—',
    })),
    {
      key: 'result',
      label: cw('result'),
      render: (f) => {
        const r = result(f);
        return (
          <span data-merge-field={f}>
            {r.text || '—'}{' '}
            {r.from && <span class="muted small">({cw('fromOther', { name: r.from.name })})</span>}
          </span>
        );
      },
    },
  ];
  // The fields some contact has: the others would be empty in every column.
  const rows = ROWS.filter((f) => f === 'name' || contacts.some((c) => valueText(c, f)));
  const merge = async () => {
    setBusy(true);
    setError('');
    try {
      const r = await unwrap(
        client.POST('/api/contacts/merge', {
          body: { survivor: keep.documentId, merged: others.map((o) => o.documentId) },
        }),
      );
      toast(cw('merged', { name: r.contact.name }));
      await qc.invalidateQueries({ queryKey: ['contacts'] });
      await qc.invalidateQueries({ queryKey: ['contact', keep.documentId] });
      await qc.invalidateQueries({ queryKey: ['contact-activities', keep.documentId] });
      onMerged(r.contact as Contact);
    } catch (err) {
      setError(reason(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open
      wide
      title={cw('mergeTitle')}
      onClose={onClose}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {cw('cancel')}
          </Button>
          <Button variant="danger" busy={busy} onClick={merge}>
            {cw('doMerge', { n: num(contacts.length) })}
          </Button>
        </>
      }
    >
      <p>{cw('mergeIntro')}</p>
      <fieldset class="ct-keep">
        <legend>{cw('keep')}</legend>
        {contacts.map((c) => (
          <label key={c.documentId} class="ct-check">
            <input
              type="radio"
              name="merge-survivor"
              value={c.documentId}
              checked={c.documentId === survivor}
              onChange={() => setSurvivor(c.documentId)}
            />{' '}
            {c.name}
            {c.email ? <span class="muted small"> · {c.email}</span> : null}
          </label>
        ))}
      </fieldset>
      <div data-testid="merge-preview">
        <DataTable caption={cw('result')} columns={columns} rows={rows} rowKey={(f) => f} />
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </Dialog>
  );
}
