import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { type Card, type ChatMessage, type Conversation, client, featureOff, reason, unwrap } from '../api';
import { dateTime, t } from '../i18n';
import { wordsOf } from '../lib/area-words';
import { canChangeMeeting } from '../lib/board-access';
import { contactLabel } from '../lib/labels';
import { personName } from '../lib/people';
import { canWrite } from '../session';
import { Button, confirmAction } from '../ui';
import * as agendaWords from '../words/agenda';
import { Link } from './Link';
import { EditMeetingDialog, MeetingForm } from './MeetingForm';

const aw = wordsOf(agendaWords);

type Meeting = import('../api').Schemas['CalendarMeeting'];

/**
 * The card's meetings (agenda area), each with its organizer; "Editar" and "Cancelar reunião" for the organizer
 * only. Hidden when the plan has no agenda.
 */
export function CardMeetings({ boardId, card }: { boardId: string; card: Card }) {
  const qc = useQueryClient();
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const [error, setError] = useState('');
  const cardId = card.documentId;
  const list = useQuery({
    queryKey: ['meetings', boardId, cardId],
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/boards/{boardId}/cards/{cardId}/calendar-meetings', {
            params: { path: { boardId, cardId } },
          }),
        )
      ).data as Meeting[],
  });
  const connected = useQuery({
    queryKey: ['calendar-connections'],
    enabled: canWrite() && !!list.data,
    queryFn: async () => (await unwrap(client.GET('/api/calendar-connections'))).data,
  });
  if (featureOff(list.error)) return null;
  const cancel = async (id: string) => {
    if (!(await confirmAction({ title: t('cancelMeetingConfirm'), danger: true }))) return;
    setError('');
    try {
      await unwrap(client.DELETE('/api/calendar-meetings/{id}', { params: { path: { id } } }));
      // The card's history (comments) gains the cancellation; the meeting's own read says it is cancelled.
      for (const k of ['meetings', 'agenda', 'comments']) await qc.invalidateQueries({ queryKey: [k] });
      await qc.invalidateQueries({ queryKey: ['meeting', id] });
    } catch (err) {
      setError(reason(err));
    }
  };
  return (
    <section aria-labelledby="meetings-title" data-testid="card-meetings">
      <h3 id="meetings-title">{t('meetings')}</h3>
      <ul class="plain">
        {list.data?.map((m) => (
          <li key={m.documentId} class={m.status === 'cancelled' ? 'cancelled' : ''}>
            <strong>{m.title}</strong>{' '}
            <span class="muted small">
              {dateTime(m.start)} · {m.status === 'cancelled' ? t('cancelled') : t('scheduled')}
              {m.organizer && (
                <>
                  {' · '}
                  <span data-testid="meeting-organizer">
                    {aw('organizedBy', { name: personName(m.organizer) })}
                  </span>
                </>
              )}
            </span>
            {canChangeMeeting(m) && (
              <>
                {' '}
                <Button
                  variant="ghost"
                  aria-label={aw('editMeetingOf', { title: m.title })}
                  onClick={() => setEditing(m.documentId)}
                >
                  {aw('edit')}
                </Button>
                <Button variant="ghost" onClick={() => cancel(m.documentId)}>
                  {t('cancelMeeting')}
                </Button>
              </>
            )}
          </li>
        ))}
        {list.data?.length === 0 && <li class="muted">{t('noItems')}</li>}
      </ul>
      {list.error && !featureOff(list.error) && <p class="error">{reason(list.error)}</p>}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {canWrite() &&
        connected.data &&
        (connected.data.length === 0 ? (
          <p class="muted small">
            {t('connectCalendarFirst')} <Link href="/agenda">{t('agenda')}</Link>
          </p>
        ) : adding ? (
          <MeetingForm boardId={boardId} card={card} onDone={() => setAdding(false)} />
        ) : (
          <Button variant="secondary" onClick={() => setAdding(true)}>
            {t('newMeeting')}
          </Button>
        ))}
      {editing && <EditMeetingDialog id={editing} onClose={() => setEditing(null)} />}
    </section>
  );
}

/**
 * The card's conversation (inbox area): the conversations of the card's contact linked to this card, their
 * latest messages and a link to the inbox. Hidden when the plan has no inbox or there is none.
 */
export function CardConversation({ card }: { card: Card }) {
  const contactId = card.contact?.documentId;
  const convs = useQuery({
    queryKey: ['card-conversations', contactId],
    enabled: !!contactId,
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/contacts/{contactId}/conversations', {
            params: { path: { contactId: contactId! } },
          }),
        )
      ).data as Conversation[],
  });
  const conv = convs.data?.find((c) => c.card?.documentId === card.documentId);
  const messages = useQuery({
    queryKey: ['messages-latest', conv?.id],
    enabled: !!conv,
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/conversations/{id}/messages', {
            params: { path: { id: conv!.id }, query: { limit: 5 } as never },
          }),
        )
      ).data as ChatMessage[],
  });
  if (!conv) return null;
  return (
    <section aria-labelledby="card-conv-title" data-testid="card-conversation">
      <h3 id="card-conv-title">{t('conversation')}</h3>
      <p class="muted small">
        {contactLabel(conv)} · {t(`conv_${conv.status}`)} ·{' '}
        <Link href={`/inbox/${conv.id}`}>{t('openInInbox')}</Link>
      </p>
      <ol class="thread mini">
        {[...(messages.data ?? [])].reverse().map((m) => (
          <li key={m.id} class={`msg ${m.direction}`}>
            <p>{m.content || `[${m.contentType}]`}</p>
            <span class="muted small">{dateTime(m.createdAt)}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
