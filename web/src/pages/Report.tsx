import { useQuery } from '@tanstack/react-query';
import { useRef, useState } from 'preact/hooks';
import { ApiError, client, reason, unwrap } from '../api';
import { ChartView } from '../components/Chart';
import { DateInput } from '../components/DateInput';
import { Link } from '../components/Link';
import { NotFound } from '../components/NotFound';
import { date, money, t } from '../i18n';
import { num, percent, upperFirst, w } from '../lib/words';
import { type Column, DataTable, EmptyState, Field, PageHeader, Skeleton, type Sort } from '../ui';

interface Report {
  boardName: string;
  currency: string;
  summary: {
    totalCards: number;
    wonCount: number;
    lostCount: number;
    totalValue: number;
    wonValue: number;
    opportunityValue: number;
  };
  phases: { phaseId: string; name: string; count: number; value: number }[];
  assignees: { membershipId: string | null; displayName: string; count: number; value: number }[];
  tags: { tagId: string; name: string; color: string | null; count: number }[];
  createdByDay: { date: string; count: number }[];
}

export function ReportPage({ boardId }: { boardId: string }) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const report = useQuery({
    queryKey: ['report', boardId, from, to],
    queryFn: async () =>
      (await unwrap(
        client.GET('/api/boards/{boardId}/report', {
          params: {
            path: { boardId },
            query: {
              ...(from ? { from: `${from}T00:00:00Z` } : {}),
              ...(to ? { to: `${to}T23:59:59Z` } : {}),
            } as never,
          },
        }),
      )) as unknown as Report,
  });
  // The last report stays on the page while another range loads or is refused (the date fields stay mounted).
  const last = useRef<Report>();
  if (report.data) last.current = report.data;
  if (report.error instanceof ApiError && report.error.status === 404) return <NotFound />;
  const r = report.data ?? last.current;
  if (!r)
    return report.error ? (
      <p role="alert" class="error">
        {reason(report.error)}
      </p>
    ) : (
      <section class="page">
        <Skeleton lines={8} />
      </section>
    );
  const cur = (v: number) => money(v, r.currency);
  const closed = r.summary.wonCount + r.summary.lostCount;
  return (
    <section class="page report" data-testid="report">
      <PageHeader
        title={`${t('report')}: ${r.boardName}`}
        actions={
          <Link href={`/boards/${boardId}`} class="button-link">
            {t('back')}
          </Link>
        }
      />
      <form class="row" onSubmit={(e) => e.preventDefault()}>
        <Field label={w('from')}>
          <DateInput name="from" value={from} onChange={setFrom} />
        </Field>
        <Field label={w('to')}>
          <DateInput name="to" value={to} onChange={setTo} />
        </Field>
      </form>
      {report.error && (
        <p role="alert" class="error">
          {reason(report.error)}
        </p>
      )}
      <dl class="stats">
        <div>
          <dt>{t('totalCards')}</dt>
          <dd>{num(r.summary.totalCards)}</dd>
        </div>
        <div>
          <dt>{t('totalValue')}</dt>
          <dd>{cur(r.summary.totalValue)}</dd>
        </div>
        <div>
          <dt>{t('opportunity')}</dt>
          <dd>{cur(r.summary.opportunityValue)}</dd>
        </div>
        <div>
          <dt>{t('conversion')}</dt>
          <dd>{closed ? percent(r.summary.wonCount / closed) : '—'}</dd>
        </div>
      </dl>
      {r.summary.totalCards ? (
        <>
          <ReportCharts r={r} cur={cur} />
          <PhaseTable r={r} cur={cur} />
        </>
      ) : (
        <EmptyState text={w('noCardsInRange')} />
      )}
    </section>
  );
}

/** The charts, each with a text summary: cards and value by phase, cards by assignee, cards created by day. */
function ReportCharts({ r, cur }: { r: Report; cur: (v: number) => string }) {
  return (
    <div class="charts">
      <ChartView
        label={t('byPhase')}
        summary={r.phases.map((p) => `${p.name} ${num(p.count)}`).join(', ')}
        config={{
          type: 'bar',
          data: {
            labels: r.phases.map((p) => p.name),
            datasets: [
              {
                label: upperFirst(t('cards')),
                data: r.phases.map((p) => p.count),
                backgroundColor: '#2e7d32',
              },
            ],
          },
        }}
      />
      <ChartView
        label={t('valueByPhase')}
        summary={r.phases.map((p) => `${p.name} ${cur(p.value)}`).join(', ')}
        config={{
          type: 'bar',
          data: {
            labels: r.phases.map((p) => p.name),
            datasets: [{ label: t('value'), data: r.phases.map((p) => p.value), backgroundColor: '#1565c0' }],
          },
        }}
      />
      <ChartView
        label={t('byAssignee')}
        summary={r.assignees.map((a) => `${a.displayName || t('none')} ${num(a.count)}`).join(', ')}
        config={{
          type: 'bar',
          data: {
            labels: r.assignees.map((a) => a.displayName || t('none')),
            datasets: [
              {
                label: upperFirst(t('cards')),
                data: r.assignees.map((a) => a.count),
                backgroundColor: '#6a1b9a',
              },
            ],
          },
          options: { indexAxis: 'y' },
        }}
      />
      <ChartView
        label={t('createdByDay')}
        summary={r.createdByDay.map((d) => `${date(`${d.date}T12:00:00Z`)} ${num(d.count)}`).join(', ')}
        config={{
          type: 'line',
          data: {
            labels: r.createdByDay.map((d) => date(`${d.date}T12:00:00Z`)),
            datasets: [
              {
                label: upperFirst(t('cards')),
                data: r.createdByDay.map((d) => d.count),
                borderColor: '#f57c00',
              },
            ],
          },
          // From zero: a day with 4 cards and one with 5 are not a cliff.
          options: { scales: { y: { beginAtZero: true } } },
        }}
      />
    </div>
  );
}

type PhaseRow = Report['phases'][number];

/** Cards and value per phase, in the board's order until a column header sorts it. */
function PhaseTable({ r, cur }: { r: Report; cur: (v: number) => string }) {
  const [sort, setSort] = useState<Sort | undefined>();
  const columns: Column<PhaseRow>[] = [
    { key: 'name', label: t('phase'), sortable: true },
    {
      key: 'count',
      label: upperFirst(t('cards')),
      sortable: true,
      numeric: true,
      render: (p) => num(p.count),
    },
    { key: 'value', label: t('value'), sortable: true, numeric: true, render: (p) => cur(p.value) },
  ];
  const rows = sort
    ? [...r.phases].sort((a, b) => {
        const k = sort.key as keyof PhaseRow;
        const c =
          typeof a[k] === 'number'
            ? (a[k] as number) - (b[k] as number)
            : String(a[k]).localeCompare(String(b[k]));
        return sort.dir === 'asc' ? c : -c;
      })
    : r.phases;
  return (
    <DataTable
      caption={t('byPhase')}
      columns={columns}
      rows={rows}
      rowKey={(p) => p.phaseId}
      sort={sort}
      onSort={setSort}
      testId="report-phases"
    />
  );
}
