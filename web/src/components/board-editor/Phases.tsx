import { useState } from 'preact/hooks';
import { type Board, client, type Phase, unwrap } from '../../api';
import { refusalOf } from '../../lib/marketing';
import { num } from '../../lib/words';
import { Badge, Button, confirmAction, Field, toast } from '../../ui';
import { bw, colorInput, ordered, structureRefusal, useStructureRefresh } from './shared';

const slaValue = (v: string) => (v.trim() === '' ? null : Number(v));

/**
 * A phase's column colour: the browser's colour picker, and a button that takes the colour away (a colour input
 * always holds one, so "none" is the picker's grey with the hint saying so until one is picked).
 */
function PhaseColor({
  name,
  phaseName,
  value,
  error,
  onChange,
}: {
  name: string;
  phaseName: string;
  value: string | null;
  error?: string;
  onChange: (color: string | null) => void;
}) {
  return (
    <>
      <Field label={bw('phaseColor')} hint={value ? undefined : bw('phaseNoColor')} error={error}>
        <input
          name={name}
          type="color"
          value={colorInput(value)}
          onInput={(e) => onChange((e.target as HTMLInputElement).value)}
        />
      </Field>
      {value && (
        <Button
          variant="ghost"
          onClick={() => onChange(null)}
          aria-label={phaseName ? bw('clearColorOf', { name: phaseName }) : bw('clearColor')}
        >
          {bw('clearColor')}
        </Button>
      )}
    </>
  );
}

/** The phases in order: renamed, moved up or down, given an SLA (hours in the phase) and a colour, deleted, added. */
export function PhasesSection({ board: b }: { board: Board }) {
  const phases = ordered(b);
  return (
    <section class="be-section" id="be-phases" aria-labelledby="be-phases-h">
      <h2 id="be-phases-h">{bw('secPhases')}</h2>
      <p class="muted">{bw('phasesIntro')}</p>
      {phases.length === 0 && <p class="muted">{bw('noPhases')}</p>}
      <ol class="be-list">
        {phases.map((p, i) => (
          <PhaseRow
            key={`${p.documentId}-${p.name}-${p.maxTimeInPhaseHours}-${p.color}`}
            board={b}
            phase={p}
            index={i}
            last={i === phases.length - 1}
          />
        ))}
      </ol>
      <NewPhase board={b} />
    </section>
  );
}

function PhaseRow({
  board: b,
  phase: p,
  index,
  last,
}: {
  board: Board;
  phase: Phase;
  index: number;
  last: boolean;
}) {
  const refresh = useStructureRefresh(b.documentId);
  const [name, setName] = useState(p.name);
  const [sla, setSla] = useState(p.maxTimeInPhaseHours == null ? '' : String(p.maxTimeInPhaseHours));
  const [color, setColor] = useState<string | null>(p.color ?? null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const put = async (data: Record<string, unknown>, ok: string) => {
    setErrors({});
    setGeneral('');
    setBusy(true);
    try {
      await unwrap(
        client.PUT('/api/boards/{boardId}/phases/{id}', {
          params: { path: { boardId: b.documentId, id: p.documentId } },
          body: { data } as never,
        }),
      );
      toast(ok);
      await refresh();
    } catch (err) {
      const r = refusalOf(err, ['name', 'maxTimeInPhaseHours', 'color']);
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    const ok = await confirmAction({
      title: bw('deletePhaseTitle', { name: p.name }),
      text: bw('deletePhaseText'),
      confirmLabel: bw('delete'),
      danger: true,
    });
    if (!ok) return;
    setGeneral('');
    try {
      await unwrap(
        client.DELETE('/api/boards/{boardId}/phases/{id}', {
          params: { path: { boardId: b.documentId, id: p.documentId } },
        }),
      );
      toast(bw('phaseDeleted', { name: p.name }));
      await refresh();
    } catch (err) {
      setGeneral(structureRefusal(err, b));
    }
  };
  return (
    <li class="be-item" data-phase={p.documentId}>
      <form
        noValidate
        class="be-row"
        onSubmit={(e) => {
          e.preventDefault();
          void put({ name, maxTimeInPhaseHours: slaValue(sla), color }, bw('phaseSaved', { name }));
        }}
      >
        <span class="be-order" aria-hidden="true">
          {num(index + 1)}
        </span>
        <Field label={bw('phaseName')} error={errors.name}>
          <input
            name={`phase-name-${index}`}
            maxLength={120}
            value={name}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
        </Field>
        <Field label={bw('slaHours')} hint={bw('slaHint')} error={errors.maxTimeInPhaseHours}>
          <input
            name={`phase-sla-${index}`}
            type="number"
            min="1"
            max="8760"
            step="1"
            value={sla}
            onInput={(e) => setSla((e.target as HTMLInputElement).value)}
          />
        </Field>
        <PhaseColor
          name={`phase-color-${index}`}
          phaseName={p.name}
          value={color}
          error={errors.color}
          onChange={setColor}
        />
        <span class="be-badges">
          {index === 0 && <Badge tone="info">{bw('entryPhase')}</Badge>}
          {b.boardSettings.wonPhase === p.documentId && <Badge tone="success">{bw('wonMark')}</Badge>}
          {b.boardSettings.lostPhase === p.documentId && <Badge tone="danger">{bw('lostMark')}</Badge>}
        </span>
        <span class="ds-actions">
          <Button submit variant="secondary" busy={busy} aria-label={bw('savePhaseOf', { name: p.name })}>
            {bw('save')}
          </Button>
          <Button
            variant="ghost"
            disabled={index === 0 || busy}
            onClick={() => put({ order: index - 1 }, bw('phaseMoved', { name: p.name }))}
            aria-label={bw('moveUpOf', { name: p.name })}
          >
            <span aria-hidden="true">↑</span>
          </Button>
          <Button
            variant="ghost"
            disabled={last || busy}
            onClick={() => put({ order: index + 1 }, bw('phaseMoved', { name: p.name }))}
            aria-label={bw('moveDownOf', { name: p.name })}
          >
            <span aria-hidden="true">↓</span>
          </Button>
          <Button variant="ghost" onClick={remove} aria-label={bw('deletePhaseOf', { name: p.name })}>
            {bw('delete')}
          </Button>
        </span>
      </form>
      {general && (
        <p role="alert" class="error" data-testid="phase-error">
          {general}
        </p>
      )}
    </li>
  );
}

function NewPhase({ board: b }: { board: Board }) {
  const refresh = useStructureRefresh(b.documentId);
  const [name, setName] = useState('');
  const [sla, setSla] = useState('');
  const [color, setColor] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const save = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setGeneral('');
    setBusy(true);
    try {
      await unwrap(
        client.POST('/api/boards/{boardId}/phases', {
          params: { path: { boardId: b.documentId } },
          body: { data: { name, maxTimeInPhaseHours: slaValue(sla), color } } as never,
        }),
      );
      toast(bw('phaseAdded', { name }));
      setName('');
      setSla('');
      setColor(null);
      await refresh();
    } catch (err) {
      const r = refusalOf(err, ['name', 'maxTimeInPhaseHours', 'color']);
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form noValidate class="be-row be-new" onSubmit={save} aria-label={bw('addPhase')}>
      <Field label={bw('newPhaseName')} required error={errors.name}>
        <input
          name="new-phase-name"
          maxLength={120}
          value={name}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
      </Field>
      <Field label={bw('slaHours')} error={errors.maxTimeInPhaseHours}>
        <input
          name="new-phase-sla"
          type="number"
          min="1"
          max="8760"
          value={sla}
          onInput={(e) => setSla((e.target as HTMLInputElement).value)}
        />
      </Field>
      <PhaseColor
        name="new-phase-color"
        phaseName=""
        value={color}
        error={errors.color}
        onChange={setColor}
      />
      <span class="ds-actions">
        <Button submit busy={busy}>
          {bw('addPhase')}
        </Button>
      </span>
      {general && (
        <p role="alert" class="error">
          {general}
        </p>
      )}
    </form>
  );
}
