import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, unwrap } from '../../api';
import { useMembers, useTeams } from '../../lib/directory';
import { refusalOf } from '../../lib/marketing';
import { personName } from '../../lib/people';
import { Button, Dialog, Field, toast } from '../../ui';
import { DateInput } from '../DateInput';
import {
  type CustomErrors,
  CustomFieldsEditor,
  type CustomRow,
  customBody,
  customRefusals,
  customRows,
} from './CustomFields';
import {
  ALL_FIELDS,
  type Contact,
  cnpjText,
  cpfText,
  cw,
  DATE_FIELDS,
  TEXT_FIELDS,
  taxIdRefusal,
} from './shared';

type Form = Record<(typeof TEXT_FIELDS)[number] | (typeof DATE_FIELDS)[number], string> & {
  contact_type: 'pessoa' | 'empresa';
  owner: string;
  team: string;
};

const formOf = (c: Partial<Contact> | null): Form => ({
  name: c?.name ?? '',
  email: c?.email ?? '',
  phone: c?.phone ?? '',
  cpf: c?.cpf ? cpfText(c.cpf) : '',
  cnpj: c?.cnpj ? cnpjText(c.cnpj) : '',
  address: c?.address ?? '',
  city: c?.city ?? '',
  state: c?.state ?? '',
  country: c?.country ?? '',
  postal_code: c?.postal_code ?? '',
  birthdate: c?.birthdate ?? '',
  first_buy_date: c?.first_buy_date ?? '',
  contact_type: c?.contact_type ?? 'pessoa',
  owner: c?.owner?.documentId ?? '',
  team: c?.team?.documentId ?? '',
});

/**
 * Every attribute of a contact in one dialog (new or existing): identity, location, relationship and custom
 * fields. The service's refusals show beside their fields; the saved contact goes to `onSaved`.
 */
export function ContactEditor({
  contact,
  initial,
  onClose,
  onSaved,
}: {
  contact: Contact | null;
  /** A new contact's first values (what the quick form already holds). */
  initial?: Partial<Contact>;
  onClose: () => void;
  onSaved?: (c: Contact) => void;
}) {
  const qc = useQueryClient();
  const members = useMembers();
  const teams = useTeams();
  const [form, setForm] = useState<Form>(() => formOf(contact ?? initial ?? null));
  const [custom, setCustom] = useState<CustomRow[]>(() => customRows(contact?.customFields));
  const [customErrors, setCustomErrors] = useState<CustomErrors>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const set = (k: keyof Form) => (e: Event) =>
    setForm({ ...form, [k]: (e.target as HTMLInputElement | HTMLSelectElement).value });

  const body = (fields: Record<string, unknown>) => {
    const data: Record<string, unknown> = {};
    for (const k of [...TEXT_FIELDS, ...DATE_FIELDS]) {
      const v = form[k].trim();
      if (v || contact) data[k] = v || null;
    }
    data.name = form.name;
    data.contact_type = form.contact_type;
    if (form.owner || contact) data.owner = form.owner || null;
    if (form.team || contact) data.team = form.team || null;
    if (Object.keys(fields).length) data.customFields = fields;
    return data;
  };

  const save = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setGeneral('');
    const typed = customBody(custom, contact?.customFields);
    setCustomErrors(typed.errors);
    if (Object.keys(typed.errors).length) return;
    setBusy(true);
    try {
      const data = body(typed.fields) as never;
      const saved = (
        contact
          ? await unwrap(
              client.PUT('/api/contacts/{id}', {
                params: { path: { id: contact.documentId } },
                body: { data },
              }),
            )
          : await unwrap(client.POST('/api/contacts', { body: { data } }))
      ) as Contact;
      toast(contact ? cw('saved') : cw('created'));
      await qc.invalidateQueries({ queryKey: ['contacts'] });
      await qc.invalidateQueries({ queryKey: ['contact', saved.documentId] });
      await qc.invalidateQueries({ queryKey: ['contact-activities', saved.documentId] });
      onSaved?.(saved);
      onClose();
    } catch (err) {
      // A custom field's refusal shows at its row; the others beside their fields, else in one line.
      const atRows = customRefusals(err, custom);
      setCustomErrors(atRows);
      const r = refusalOf(err, [...ALL_FIELDS], taxIdRefusal);
      setErrors(r.fields);
      setGeneral(Object.keys(atRows).length ? '' : r.general);
    } finally {
      setBusy(false);
    }
  };

  const text = (k: (typeof TEXT_FIELDS)[number], extra: Record<string, unknown> = {}) => (
    <Field
      label={cw(k)}
      error={errors[k]}
      required={k === 'name'}
      hint={k === 'phone' ? cw('phoneHint') : undefined}
    >
      <input
        name={`contact-${k}`}
        value={form[k]}
        onInput={set(k)}
        maxLength={k === 'address' ? 500 : 200}
        {...extra}
      />
    </Field>
  );
  const dateField = (k: (typeof DATE_FIELDS)[number]) => (
    <Field label={cw(k)} error={errors[k]}>
      <DateInput name={`contact-${k}`} value={form[k]} onChange={(v) => setForm({ ...form, [k]: v })} />
    </Field>
  );

  return (
    <Dialog
      open
      wide
      title={contact ? cw('editTitle') : cw('newContact')}
      onClose={onClose}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {cw('cancel')}
          </Button>
          <Button submit busy={busy} form="contact-form">
            {cw('save')}
          </Button>
        </>
      }
    >
      <form id="contact-form" class="ct-form" onSubmit={save} noValidate>
        <fieldset>
          <legend>{cw('identity')}</legend>
          <div class="ct-grid">
            {text('name')}
            <Field label={cw('type')} error={errors.contact_type}>
              <select name="contact-contact_type" value={form.contact_type} onChange={set('contact_type')}>
                <option value="pessoa">{cw('type_pessoa')}</option>
                <option value="empresa">{cw('type_empresa')}</option>
              </select>
            </Field>
            {text('email', { type: 'email', autoComplete: 'off' })}
            {text('phone', { type: 'tel' })}
            {text('cpf', { inputMode: 'numeric' })}
            {text('cnpj', { inputMode: 'numeric' })}
          </div>
        </fieldset>
        <fieldset>
          <legend>{cw('location')}</legend>
          <div class="ct-grid">
            {text('address')}
            {text('city')}
            {text('state')}
            {text('country')}
            {text('postal_code')}
          </div>
        </fieldset>
        <fieldset>
          <legend>{cw('relation')}</legend>
          <div class="ct-grid">
            <Field label={cw('owner')} error={errors.owner}>
              <select name="contact-owner" value={form.owner} onChange={set('owner')}>
                <option value="">{cw('noOne')}</option>
                {members.data?.map((m) => (
                  <option key={m.documentId} value={m.documentId}>
                    {personName(m)}
                  </option>
                ))}
              </select>
            </Field>
            <Field label={cw('team')} error={errors.team}>
              <select name="contact-team" value={form.team} onChange={set('team')}>
                <option value="">{cw('noTeam')}</option>
                {teams.data?.map((t) => (
                  <option key={t.documentId} value={t.documentId}>
                    {t.name}
                  </option>
                ))}
              </select>
            </Field>
            {dateField('birthdate')}
            {dateField('first_buy_date')}
          </div>
        </fieldset>
        <CustomFieldsEditor rows={custom} errors={customErrors} onChange={setCustom} />
        {general && (
          <p role="alert" class="error">
            {general}
          </p>
        )}
      </form>
    </Dialog>
  );
}
