import { useQuery } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, reason, unwrap } from '../../api';
import { t } from '../../i18n';
import { Button } from '../../ui';

type Template = import('../../api').Schemas['WhatsAppTemplate'];

/** The message of a template as the service takes it: the body with its variables filled, and template_params. */
export type TemplateMessage = {
  content: string;
  template_params: {
    name: string;
    category: string;
    language: string;
    processed_params: Record<string, string>;
  };
};

/**
 * A WhatsApp template message (outside the 24-hour window, or to write first): an approved template of the
 * channel, its variables and a live preview. The reply box of a conversation (Composer) and the new-conversation
 * dialog (StartConversation) both use it.
 */
export function TemplateForm(props: {
  channelId?: string;
  sending: boolean;
  onSend: (m: TemplateMessage) => Promise<void>;
  /** Back to free text (the reply box). */
  onText?: () => void;
  /** The send button's word (default "Enviar modelo"). */
  submitLabel?: string;
  /** Nothing can be sent yet (another choice of the form is missing). */
  disabled?: boolean;
  /** The service's refusal of the template itself, shown at the template. */
  error?: string | null;
}) {
  const [picked, setPicked] = useState('');
  const [params, setParams] = useState<string[]>([]);
  const templates = useQuery({
    queryKey: ['templates', props.channelId],
    enabled: !!props.channelId,
    queryFn: async () =>
      (
        (await unwrap(
          client.GET('/api/chat-channels/{channelId}/templates', {
            params: {
              path: { channelId: props.channelId! },
              query: { pagination: { pageSize: 100 } } as never,
            },
          }),
        )) as { data: Template[] }
      ).data.filter((x) => x.status === 'APPROVED'),
  });
  const tpl = templates.data?.find((x) => x.documentId === picked);
  const body = String(
    (tpl?.components.find((c) => String(c.type).toUpperCase() === 'BODY') as { text?: string } | undefined)
      ?.text ?? '',
  );
  const vars = [...new Set([...body.matchAll(/\{\{(\d+)\}\}/g)].map((m) => m[1]))];
  const rendered = body.replace(/\{\{(\d+)\}\}/g, (_, n: string) => params[Number(n) - 1] || `{{${n}}}`);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (!tpl || props.disabled) return;
        void props.onSend({
          content: rendered,
          template_params: {
            name: tpl.name,
            category: tpl.category,
            language: tpl.language,
            processed_params: Object.fromEntries(vars.map((n) => [n, params[Number(n) - 1] ?? ''])),
          },
        });
      }}
    >
      <label>
        {t('template')}
        <select
          name="template"
          value={picked}
          aria-invalid={props.error ? true : undefined}
          onChange={(e) => setPicked((e.target as HTMLSelectElement).value)}
        >
          <option value="">—</option>
          {templates.data?.map((x) => (
            // The template's name as WhatsApp knows it, the same in every language.
            <option key={x.documentId} value={x.documentId} translate={false}>
              {x.name} ({x.language})
            </option>
          ))}
        </select>
      </label>
      {props.error && (
        <p role="alert" class="error" data-testid="template-error">
          {props.error}
        </p>
      )}
      {templates.data?.length === 0 && <p class="muted small">{t('noTemplates')}</p>}
      {templates.error && <p class="error">{reason(templates.error)}</p>}
      {vars.map((n) => (
        <label key={n}>
          {`{{${n}}}`}
          <input
            name={`param-${n}`}
            required
            value={params[Number(n) - 1] ?? ''}
            onInput={(e) => {
              const next = [...params];
              next[Number(n) - 1] = (e.target as HTMLInputElement).value;
              setParams(next);
            }}
          />
        </label>
      ))}
      {tpl && (
        <p class="template-preview" data-testid="template-preview">
          {rendered}
        </p>
      )}
      <div class="row">
        <Button submit disabled={!tpl || props.disabled} busy={props.sending}>
          {props.submitLabel ?? t('sendTemplate')}
        </Button>
        {props.onText && (
          <Button variant="ghost" onClick={props.onText}>
            {t('freeText')}
          </Button>
        )}
      </div>
    </form>
  );
}
