import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, reason, unwrap } from '../api';
import { date, t } from '../i18n';
import { code } from '../lib/words';
import { canWrite } from '../session';

interface Task {
  documentId: string;
  name: string;
  taskStatus: string;
  dueDate: string | null;
  priority: string;
  card: { documentId: string; title: string } | null;
  assignees: { documentId: string; user?: { username: string } }[];
}

export function TasksPage() {
  const qc = useQueryClient();
  const [status, setStatus] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState('');
  const list = useQuery({
    queryKey: ['tasks', status],
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/tasks', {
            params: {
              query: {
                ...(status ? { filters: { taskStatus: { $eq: status } } } : {}),
                sort: 'dueDate:asc',
                pagination: { pageSize: 100 },
              } as never,
            },
          }),
        )
      ).data as unknown as Task[],
  });
  const change = async (id: string, taskStatus: string) => {
    try {
      await unwrap(
        client.PUT('/api/tasks/{id}/status', {
          params: { path: { id } },
          body: { data: { taskStatus } } as never,
        }),
      );
      await qc.invalidateQueries({ queryKey: ['tasks'] });
    } catch (err) {
      setError(reason(err));
    }
  };
  const create = async (e: Event) => {
    e.preventDefault();
    try {
      await unwrap(client.POST('/api/tasks', { body: { data: { name } } as never }));
      setName('');
      await qc.invalidateQueries({ queryKey: ['tasks'] });
    } catch (err) {
      setError(reason(err));
    }
  };
  return (
    <section class="page">
      <h1>{t('tasks')}</h1>
      <label>
        {t('status')}
        <select value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}>
          <option value="">—</option>
          {['pending', 'in-progress', 'completed', 'cancelled'].map((s) => (
            <option key={s} value={s}>
              {code('task', s)}
            </option>
          ))}
        </select>
      </label>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <table class="table">
        <thead>
          <tr>
            <th scope="col">{t('name')}</th>
            <th scope="col">{t('card')}</th>
            <th scope="col">{t('dueDate')}</th>
            <th scope="col">{t('priority')}</th>
            <th scope="col">{t('status')}</th>
          </tr>
        </thead>
        <tbody>
          {list.data?.map((x) => (
            <tr key={x.documentId}>
              <td>{x.name}</td>
              <td>{x.card?.title ?? '—'}</td>
              <td>{date(x.dueDate)}</td>
              <td>{code('prio', x.priority)}</td>
              <td>
                <label>
                  <span class="sr-only">{t('status')}</span>
                  <select
                    value={x.taskStatus}
                    disabled={!canWrite()}
                    onChange={(e) => change(x.documentId, (e.target as HTMLSelectElement).value)}
                  >
                    {[...new Set(['pending', 'in-progress', 'completed', 'cancelled', x.taskStatus])].map(
                      (s) => (
                        <option key={s} value={s}>
                          {code('task', s)}
                        </option>
                      ),
                    )}
                  </select>
                </label>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {canWrite() && (
        <form class="row" onSubmit={create}>
          <label>
            {t('newTask')}
            <input required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </label>
          <button type="submit">{t('create')}</button>
        </form>
      )}
    </section>
  );
}
