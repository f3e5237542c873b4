import { useQuery } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, reason, unwrap } from '../../api';
import { dateTime } from '../../i18n';
import { useMembers } from '../../lib/directory';
import { personName } from '../../lib/people';
import { num } from '../../lib/words';
import { canWrite } from '../../session';
import { Badge, Button, Skeleton, type Tone } from '../../ui';
import { ConsentDialog } from './ConsentDialog';
import { type ConsentEntry, type ConsentState, codeWord, consentWhat, pw } from './lgpd';

const TONES: Record<ConsentState['status'], Tone> = {
  granted: 'success',
  withdrawn: 'danger',
  none: 'neutral',
};
/** The ledger's latest entries shown at first; the rest on request. */
const FIRST = 10;

/**
 * A contact's consents (docs/lgpd.md, "Consent"): the state of each channel and purpose with its source and date,
 * a grant or withdrawal recorded with its reason (members and up), and the ledger, newest first.
 */
export function Consents({ id }: { id: string }) {
  const [asking, setAsking] = useState<{ state: ConsentState; status: ConsentEntry['status'] } | null>(null);
  const [all, setAll] = useState(false);
  const consents = useQuery({
    queryKey: ['contact-consents', id],
    queryFn: () => unwrap(client.GET('/api/contacts/{id}/consents', { params: { path: { id } } })),
  });
  const write = canWrite();
  const data = consents.data;
  const history = data?.history ?? [];
  return (
    <section class="ct-block" aria-labelledby="consents-title" data-testid="consents">
      <h3 id="consents-title">{pw('consents')}</h3>
      <p class="muted small">{pw('consentsIntro')}</p>
      {consents.error ? (
        <p role="alert" class="error">
          {reason(consents.error)}
        </p>
      ) : !data ? (
        <Skeleton lines={3} />
      ) : (
        <ul class="ct-consents" aria-label={pw('stateCaption')}>
          {data.current.map((s) => {
            const what = consentWhat(s);
            const next = s.status === 'granted' ? 'withdrawn' : 'granted';
            return (
              <li
                key={`${s.channel}.${s.purpose}`}
                class="ct-consent"
                data-consent={`${s.channel}.${s.purpose}`}
              >
                <span class="ct-consent-what">{what}</span>
                <span data-status={s.status}>
                  <Badge tone={TONES[s.status]}>{codeWord('st', s.status)}</Badge>
                </span>
                {s.source && s.recordedAt && (
                  <span class="muted small">
                    {pw('since', { source: codeWord('src', s.source), when: dateTime(s.recordedAt) })}
                  </span>
                )}
                {write && (
                  <Button
                    variant="secondary"
                    aria-label={pw(next === 'granted' ? 'grantOf' : 'withdrawOf', { what })}
                    onClick={() => setAsking({ state: s, status: next })}
                  >
                    {pw(next === 'granted' ? 'grant' : 'withdraw')}
                  </Button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <h4>{pw('ledger')}</h4>
      <ol class="ct-ledger" data-testid="consent-ledger">
        {(all ? history : history.slice(0, FIRST)).map((e) => (
          <LedgerEntry key={e.documentId} entry={e} />
        ))}
        {data && history.length === 0 && <li class="ct-ledger-entry muted">{pw('ledgerEmpty')}</li>}
      </ol>
      {!all && history.length > FIRST && (
        <Button variant="ghost" onClick={() => setAll(true)}>
          {pw('showAll', { n: num(history.length) })}
        </Button>
      )}
      {asking && (
        <ConsentDialog id={id} state={asking.state} status={asking.status} onClose={() => setAsking(null)} />
      )}
    </section>
  );
}

/** One ledger entry in words: when, what, the basis, where it came from, who recorded it and why. */
function LedgerEntry({ entry: e }: { entry: ConsentEntry }) {
  const members = useMembers();
  const by = e.recordedBy ? members.data?.find((m) => m.documentId === e.recordedBy) : undefined;
  const note = typeof e.proof.note === 'string' ? e.proof.note : '';
  const text = typeof e.proof.text === 'string' ? e.proof.text : '';
  return (
    <li class="ct-ledger-entry" data-entry={e.documentId} data-status={e.status}>
      <span class="muted small">{dateTime(e.recordedAt)}</span>{' '}
      <strong>{pw('ledgerEntry', { what: consentWhat(e), status: codeWord('st', e.status) })}</strong>
      <span class="small">
        {' · '}
        {codeWord('lb', e.legalBasis)} · {codeWord('src', e.source)}
        {by && ` · ${pw('ledgerBy', { name: personName(by) })}`}
      </span>
      {note && <p class="small">{pw('ledgerReason', { text: note })}</p>}
      {text && <p class="small">{pw('ledgerText', { text })}</p>}
    </li>
  );
}
