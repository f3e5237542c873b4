import { useEffect, useState } from 'preact/hooks';
import { type Board, client, type Phase, unwrap } from '../../api';
import { Button, toast } from '../../ui';
import { bw, ordered, structureRefusal, useStructureRefresh } from './shared';

/** The moves a phase forbids: target documentIds listed with `allowed: false` (unlisted ones are allowed). */
const blockedOf = (p: Phase) =>
  new Set(p.allowedTransitions.filter((t) => !t.allowed).map((t) => t.phase.documentId));

/**
 * Which moves are allowed: a grid of "from" phases (rows) and "to" phases (columns), ticked when allowed. Saving
 * writes each changed phase's full list (every other phase, allowed or not).
 */
export function TransitionsSection({ board: b }: { board: Board }) {
  const refresh = useStructureRefresh(b.documentId);
  const phases = ordered(b);
  const initial = () => Object.fromEntries(phases.map((p) => [p.documentId, blockedOf(p)]));
  const [blocked, setBlocked] = useState<Record<string, Set<string>>>(initial);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  // The board read again (a phase added, renamed, deleted): the grid starts from it.
  useEffect(() => setBlocked(initial()), [b]);
  const toggle = (from: string, to: string, allowed: boolean) => {
    const next = new Set(blocked[from] ?? []);
    if (allowed) next.delete(to);
    else next.add(to);
    setBlocked({ ...blocked, [from]: next });
  };
  const same = (a: Set<string>, c: Set<string>) => a.size === c.size && [...a].every((x) => c.has(x));
  const save = async () => {
    setError('');
    setBusy(true);
    try {
      for (const p of phases) {
        const now = blocked[p.documentId] ?? new Set();
        if (same(now, blockedOf(p))) continue;
        const list = phases
          .filter((o) => o.documentId !== p.documentId)
          .map((o) => ({ phase: o.documentId, allowed: !now.has(o.documentId) }));
        await unwrap(
          client.PUT('/api/boards/{boardId}/phases/{id}', {
            params: { path: { boardId: b.documentId, id: p.documentId } },
            body: { data: { allowedTransitions: list } } as never,
          }),
        );
      }
      toast(bw('transitionsSaved'));
      await refresh();
    } catch (err) {
      setError(structureRefusal(err, b));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="be-section" id="be-transitions" aria-labelledby="be-transitions-h">
      <h2 id="be-transitions-h">{bw('secTransitions')}</h2>
      <p class="muted">{bw('transitionsIntro')}</p>
      {phases.length < 2 ? (
        <p class="muted">{bw('transitionsNeedTwo')}</p>
      ) : (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take the focus to be scrolled by keys
        <section class="ds-table-box" aria-labelledby="be-transitions-h" tabIndex={0}>
          <table class="ds-table be-matrix">
            <thead>
              <tr>
                <th scope="col">{bw('fromTo')}</th>
                {phases.map((to) => (
                  <th key={to.documentId} scope="col">
                    {to.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {phases.map((from) => (
                <tr key={from.documentId}>
                  <th scope="row">{from.name}</th>
                  {phases.map((to) =>
                    to.documentId === from.documentId ? (
                      <td key={to.documentId} class="muted">
                        —
                      </td>
                    ) : (
                      <td key={to.documentId}>
                        <input
                          type="checkbox"
                          name={`move-${from.slug}-${to.slug}`}
                          aria-label={bw('allowMove', { from: from.name, to: to.name })}
                          checked={!blocked[from.documentId]?.has(to.documentId)}
                          onChange={(e) =>
                            toggle(from.documentId, to.documentId, (e.target as HTMLInputElement).checked)
                          }
                        />
                      </td>
                    ),
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {phases.length >= 2 && (
        <div class="ds-actions">
          <Button busy={busy} onClick={save}>
            {bw('saveTransitions')}
          </Button>
        </div>
      )}
    </section>
  );
}
