import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, reason, unwrap } from '../../api';
import { Button, Dialog, Field, toast } from '../../ui';
import { type ConsentEntry, type ConsentState, codeWord, consentWhat, pw } from './lgpd';

type LegalBasis = ConsentEntry['legalBasis'];

/** The LGPD art. 7 bases the service records for messaging (docs/lgpd.md, "The ledger"), consent first. */
const BASES: LegalBasis[] = [
  'consent',
  'legal_obligation',
  'contract',
  'regular_exercise_of_rights',
  'legitimate_interest',
  'credit_protection',
];

/**
 * Records a grant or a withdrawal of one channel and purpose (POST /contacts/{id}/consents, source `manual`): the
 * legal basis of a grant, and the reason, kept in the entry's proof as `note`.
 */
export function ConsentDialog({
  id,
  state,
  status,
  onClose,
}: {
  id: string;
  state: ConsentState;
  status: ConsentEntry['status'];
  onClose: () => void;
}) {
  const qc = useQueryClient();
  const [basis, setBasis] = useState<LegalBasis>(state.legalBasis ?? 'consent');
  const [note, setNote] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const what = consentWhat(state);
  const grant = status === 'granted';
  const save = async (e: Event) => {
    e.preventDefault();
    setError('');
    setBusy(true);
    try {
      await unwrap(
        client.POST('/api/contacts/{id}/consents', {
          params: { path: { id } },
          body: {
            data: {
              channel: state.channel,
              purpose: state.purpose,
              status,
              source: 'manual',
              ...(grant ? { legalBasis: basis } : {}),
              proof: note.trim() ? { note: note.trim() } : {},
            },
          },
        }),
      );
      toast(pw(grant ? 'recorded' : 'withdrawn'));
      await qc.invalidateQueries({ queryKey: ['contact-consents', id] });
      onClose();
    } catch (err) {
      setError(reason(err));
      setBusy(false);
    }
  };
  return (
    <Dialog
      open
      title={pw(grant ? 'grantTitle' : 'withdrawTitle', { what })}
      onClose={onClose}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {pw('cancel')}
          </Button>
          <Button submit busy={busy} form="consent-form" variant={grant ? 'primary' : 'danger'}>
            {pw('record')}
          </Button>
        </>
      }
    >
      <form id="consent-form" onSubmit={save} noValidate>
        {grant && (
          <Field label={pw('legalBasis')}>
            <select
              name="consent-basis"
              value={basis}
              onChange={(e) => setBasis((e.target as HTMLSelectElement).value as LegalBasis)}
            >
              {BASES.map((b) => (
                <option key={b} value={b}>
                  {codeWord('lb', b)}
                </option>
              ))}
            </select>
          </Field>
        )}
        <Field label={pw('reason')} hint={pw('reasonHint')} error={error}>
          <textarea
            name="consent-reason"
            rows={3}
            maxLength={1000}
            value={note}
            onInput={(e) => setNote((e.target as HTMLTextAreaElement).value)}
          />
        </Field>
      </form>
    </Dialog>
  );
}
