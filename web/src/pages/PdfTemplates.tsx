import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, featureOff, reason, unwrap } from '../api';
import { FeatureOff } from '../components/FeatureOff';
import { PdfTemplateEditor } from '../components/sales/PdfTemplateEditor';
import {
  type PdfTemplate,
  type PdfWord,
  pw,
  renderTemplate,
  usePdfTemplates,
} from '../components/sales/pdf-layout';
import { SalesTabs } from '../components/sales/SalesTabs';
import { dateTime } from '../i18n';
import { isAdmin } from '../lib/marketing';
import { saveBlob } from '../lib/save-blob';
import { num } from '../lib/words';
import { Badge, Button, type Column, confirmAction, DataTable, PageHeader, toast } from '../ui';

/** A file name from a template's name: letters and digits, dashes between. */
const fileName = (name: string) =>
  `${
    name
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^a-zA-Z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .toLowerCase() || 'modelo'
  }.pdf`;

/**
 * The quotes' PDF templates (a tab of the sales area): which one quotes use by default, a preview of each with
 * sample data for everyone; admins create, edit, make default and delete.
 */
export function PdfTemplatesPage() {
  const admin = isAdmin();
  const qc = useQueryClient();
  const list = usePdfTemplates();
  const [editing, setEditing] = useState<PdfTemplate | 'new' | null>(null);
  const [error, setError] = useState('');
  const off = featureOff(list.error);
  if (off) return <FeatureOff feature={off} />;
  const current = list.data?.find((t) => t.isDefault);

  const act = async (fn: () => Promise<void>) => {
    setError('');
    try {
      await fn();
    } catch (err) {
      setError(reason(err));
    }
  };
  const preview = (t: PdfTemplate) =>
    act(async () => {
      saveBlob(await renderTemplate(t.documentId), fileName(t.name));
      toast(pw('previewReady', { name: t.name }));
    });
  const makeDefault = (t: PdfTemplate) =>
    act(async () => {
      await unwrap(
        client.PUT('/api/pdf-templates/{id}', {
          params: { path: { id: t.documentId } },
          body: { data: { isDefault: true } as never },
        }),
      );
      toast(pw('nowDefault', { name: t.name }));
      await qc.invalidateQueries({ queryKey: ['pdf-templates'] });
    });
  const remove = async (t: PdfTemplate) => {
    const ok = await confirmAction({
      title: pw('removeTitle'),
      text: pw(t.isDefault ? 'removeDefaultText' : 'removeText', { name: t.name }),
      confirmLabel: pw('remove'),
      danger: true,
    });
    if (!ok) return;
    await act(async () => {
      await unwrap(client.DELETE('/api/pdf-templates/{id}', { params: { path: { id: t.documentId } } }));
      toast(pw('removed'));
      await qc.invalidateQueries({ queryKey: ['pdf-templates'] });
    });
  };

  const columns: Column<PdfTemplate>[] = [
    {
      key: 'name',
      label: pw('name'),
      render: (t) => (
        <>
          <strong>{t.name}</strong> {t.isDefault && <Badge tone="success">{pw('defaultMark')}</Badge>}
        </>
      ),
    },
    { key: 'pageSize', label: pw('pageSize'), render: (t) => pw(`ps_${t.layout.pageSize}` as PdfWord) },
    { key: 'blocks', label: pw('blocksCount'), numeric: true, render: (t) => num(t.layout.blocks.length) },
    { key: 'updatedAt', label: pw('updated'), render: (t) => dateTime(t.updatedAt) },
    {
      key: 'actions',
      label: pw('actions'),
      render: (t) => (
        <span class="ds-actions">
          <Button
            variant="secondary"
            onClick={() => preview(t)}
            aria-label={pw('previewOf', { name: t.name })}
          >
            {pw('preview')}
          </Button>
          {admin && (
            <>
              <Button
                variant="secondary"
                onClick={() => setEditing(t)}
                aria-label={pw('editOf', { name: t.name })}
              >
                {pw('edit')}
              </Button>
              {!t.isDefault && (
                <Button
                  variant="ghost"
                  onClick={() => makeDefault(t)}
                  aria-label={pw('makeDefaultOf', { name: t.name })}
                >
                  {pw('makeDefault')}
                </Button>
              )}
              <Button variant="ghost" onClick={() => remove(t)} aria-label={pw('removeOf', { name: t.name })}>
                {pw('remove')}
              </Button>
            </>
          )}
        </span>
      ),
    },
  ];
  return (
    <section class="page mkt" data-testid="pdf-templates">
      <PageHeader
        title={pw('title')}
        actions={admin && <Button onClick={() => setEditing('new')}>{pw('newTemplate')}</Button>}
      >
        <p class="muted">{pw('intro')}</p>
      </PageHeader>
      <SalesTabs at="pdf-templates" />
      {list.data && (
        <p data-testid="pdf-default">
          {current ? pw('usesDefault', { name: current.name }) : pw('usesBuiltIn')}
        </p>
      )}
      {!admin && <p class="muted">{pw('adminsOnly')}</p>}
      <DataTable
        caption={pw('title')}
        testId="pdf-template-list"
        columns={columns}
        rows={list.data}
        loading={list.isLoading}
        rowKey={(t) => t.documentId}
        rowAttrs={(t) => ({ 'data-template-id': t.documentId })}
        empty={pw('empty')}
      />
      {(error || list.error) && (
        <p role="alert" class="error">
          {error || reason(list.error)}
        </p>
      )}
      {editing && (
        <PdfTemplateEditor
          key={editing === 'new' ? 'new' : editing.documentId}
          template={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
        />
      )}
    </section>
  );
}
