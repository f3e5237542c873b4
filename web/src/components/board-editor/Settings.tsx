import { useState } from 'preact/hooks';
import { type Board, client, unwrap } from '../../api';
import { refusalOf } from '../../lib/marketing';
import { Button, Field, toast } from '../../ui';
import { bw, colorInput, ordered, useStructureRefresh } from './shared';

const CURRENCIES = ['BRL', 'USD', 'EUR'];

/** The board itself: name, colour, currency, whether cards show values, the won and lost phases. */
export function SettingsSection({ board: b }: { board: Board }) {
  const refresh = useStructureRefresh(b.documentId);
  const s = b.boardSettings;
  const [name, setName] = useState(b.name);
  const [color, setColor] = useState(colorInput(b.color));
  const [currency, setCurrency] = useState(s.currency);
  const [showValue, setShowValue] = useState(s.showValue);
  const [won, setWon] = useState(s.wonPhase ?? '');
  const [lost, setLost] = useState(s.lostPhase ?? '');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const phases = ordered(b);
  const currencies = CURRENCIES.includes(s.currency) ? CURRENCIES : [s.currency, ...CURRENCIES];
  const save = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setGeneral('');
    setBusy(true);
    try {
      await unwrap(
        client.PUT('/api/boards/{id}', {
          params: { path: { id: b.documentId } },
          body: {
            data: {
              name,
              color,
              boardSettings: { currency, showValue, wonPhase: won || null, lostPhase: lost || null },
            },
          },
        }),
      );
      toast(bw('boardSaved'));
      await refresh();
    } catch (err) {
      const r = refusalOf(err, ['name', 'color', 'currency', 'wonPhase', 'lostPhase']);
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };
  const phaseSelect = (value: string, set: (v: string) => void, name: string) => (
    <select name={name} value={value} onChange={(e) => set((e.target as HTMLSelectElement).value)}>
      <option value="">{bw('noPhase')}</option>
      {phases.map((p) => (
        <option key={p.documentId} value={p.documentId}>
          {p.name}
        </option>
      ))}
    </select>
  );
  return (
    <section class="be-section" id="be-board" aria-labelledby="be-board-h">
      <h2 id="be-board-h">{bw('secBoard')}</h2>
      <form noValidate onSubmit={save} class="be-grid">
        <Field label={bw('boardName')} required error={errors.name}>
          <input
            name="board-name"
            maxLength={120}
            value={name}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
        </Field>
        <Field label={bw('boardColor')} error={errors.color}>
          <input
            name="board-color"
            type="color"
            value={color}
            onInput={(e) => setColor((e.target as HTMLInputElement).value)}
          />
        </Field>
        <Field label={bw('currency')} error={errors.currency}>
          <select
            name="board-currency"
            value={currency}
            onChange={(e) => setCurrency((e.target as HTMLSelectElement).value)}
          >
            {currencies.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </Field>
        <Field label={bw('wonPhase')} error={errors.wonPhase}>
          {phaseSelect(won, setWon, 'board-won')}
        </Field>
        <Field label={bw('lostPhase')} error={errors.lostPhase}>
          {phaseSelect(lost, setLost, 'board-lost')}
        </Field>
        <label class="mkt-check be-wide">
          <input
            type="checkbox"
            name="board-show-value"
            checked={showValue}
            onChange={(e) => setShowValue((e.target as HTMLInputElement).checked)}
          />{' '}
          {bw('showValue')}
        </label>
        {general && (
          <p role="alert" class="error be-wide">
            {general}
          </p>
        )}
        <div class="ds-actions be-wide">
          <Button submit busy={busy}>
            {bw('saveBoard')}
          </Button>
        </div>
      </form>
    </section>
  );
}
