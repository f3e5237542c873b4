import type { Tx } from '../../platform/db/client.js';
import { type FieldError, validationError } from '../../platform/http/errors.js';
import { requirePublicUrl } from '../../platform/outbound/save-check.js';
import { membershipIdsByDocumentIds } from '../../platform/tenancy/memberships.js';
import { type BoardStructure, findBoard, loadBoardStructure } from '../boards/index.js';
import { validateFieldValue } from '../cards/index.js';
import { findChannel } from '../channels/index.js';
import { findQueue } from '../distribution/index.js';
import { findTemplate as findEmailTemplate } from '../email-templates/index.js';
import { findWhatsAppTemplate } from './messaging.js';
import type { Action, AutomationInput } from './schema.js';

/** Actions that change the triggering card: they need a card event (other than card.deleted). */
const CARD_ACTIONS = new Set(['move_card', 'assign', 'add_tag', 'remove_tag', 'set_field', 'set_due_date']);
/** Actions whose references (phases, tags, fields) belong to a board: they need `board`. */
const BOARD_ACTIONS = new Set(['move_card', 'add_tag', 'remove_tag', 'set_field']);
/** Actions that write to a person: the event must name a contact or a card (whose contact is written to). */
const MESSAGE_ACTIONS = new Set(['send_template_message', 'send_email']);

export const isCardEvent = (event: string) => event.startsWith('card.') && event !== 'card.deleted';

const listOf = (xs: string[]) => (xs.length ? xs.join(', ') : '(none)');

/**
 * Checks an automation against the organization's data before it is saved: the board, and every phase, tag,
 * field, membership and queue its actions name (unknown → 400 naming the valid ones). Returns the board.
 */
export async function validateAutomation(
  tx: Tx,
  orgId: number,
  input: Pick<AutomationInput, 'trigger' | 'actions'> & { board?: string | null },
): Promise<BoardStructure | undefined> {
  const errors: FieldError[] = [];
  let structure: BoardStructure | undefined;
  if (input.board) {
    const board = await findBoard(tx, orgId, input.board);
    if (!board)
      throw validationError(`Unknown board ${input.board}`, [
        { path: ['board'], message: 'no board with this documentId', name: 'ValidationError' },
      ]);
    structure = await loadBoardStructure(tx, orgId, board.id);
    if (!input.trigger.event.startsWith('card.'))
      errors.push({
        path: ['board'],
        message: `a board applies to card events only; ${input.trigger.event} is not one (drop board)`,
        name: 'ValidationError',
      });
  }
  for (const [i, a] of input.actions.entries()) {
    const at = (message: string, ...rest: (string | number)[]) =>
      errors.push({ path: ['actions', i, ...rest], message, name: 'ValidationError' });
    if (
      MESSAGE_ACTIONS.has(a.type) &&
      !isCardEvent(input.trigger.event) &&
      !input.trigger.event.startsWith('contact.')
    ) {
      at(`${a.type} writes to the event's contact: the trigger must be a card or contact event`, 'type');
      continue;
    }
    if (CARD_ACTIONS.has(a.type) && !isCardEvent(input.trigger.event)) {
      at(
        `${a.type} acts on the triggering card: the trigger must be a card event (not card.deleted)`,
        'type',
      );
      continue;
    }
    if (BOARD_ACTIONS.has(a.type) && !structure) {
      at(`${a.type} names a board's phase, tag or field: set \`board\``, 'type');
      continue;
    }
    await checkAction(tx, orgId, structure, a, at);
  }
  if (errors.length)
    throw validationError(
      errors.length === 1
        ? `${errors[0].path.join('.')}: ${errors[0].message}`
        : `${errors.length} invalid values`,
      errors,
    );
  return structure;
}

async function checkAction(
  tx: Tx,
  orgId: number,
  structure: BoardStructure | undefined,
  a: Action,
  at: (message: string, ...path: (string | number)[]) => void,
) {
  switch (a.type) {
    case 'move_card': {
      const s = structure!;
      if (!s.phases.some((p) => p.documentId === a.params.phase || p.slug === a.params.phase))
        at(
          `unknown phase ${a.params.phase}; phases of this board: ${listOf(s.phases.map((p) => p.slug))}`,
          'params',
          'phase',
        );
      return;
    }
    case 'add_tag':
    case 'remove_tag': {
      const s = structure!;
      if (!s.tags.some((t) => t.documentId === a.params.tag || t.slug === a.params.tag))
        at(
          `unknown tag ${a.params.tag}; tags of this board: ${listOf(s.tags.map((t) => t.slug))}`,
          'params',
          'tag',
        );
      return;
    }
    case 'set_field': {
      const s = structure!;
      const field = s.fieldsBySlug.get(a.params.slug);
      if (!field) {
        at(
          `unknown field ${a.params.slug}; fields of this board: ${listOf([...s.fieldsBySlug.keys()])}`,
          'params',
          'slug',
        );
        return;
      }
      if (a.params.value === null || a.params.value === undefined) return;
      const check = validateFieldValue(field, a.params.value);
      if (!check.ok) at(`${a.params.slug}: ${check.message}`, 'params', 'value');
      return;
    }
    case 'assign': {
      if (a.params.membership) {
        const { missing } = await membershipIdsByDocumentIds(tx, orgId, [a.params.membership]);
        if (missing.length)
          at(`no membership ${a.params.membership} in this organization`, 'params', 'membership');
      } else if (a.params.distributionQueue && !(await findQueue(tx, orgId, a.params.distributionQueue)))
        at(`no distribution queue ${a.params.distributionQueue}`, 'params', 'distributionQueue');
      return;
    }
    case 'create_task': {
      const refs = a.params.assignees ?? [];
      const { missing } = await membershipIdsByDocumentIds(tx, orgId, refs);
      if (missing.length)
        at(`no membership ${missing.join(', ')} in this organization`, 'params', 'assignees');
      return;
    }
    case 'send_email': {
      if (!(await findEmailTemplate(tx, orgId, a.params.template)))
        at(`no e-mail template ${a.params.template}`, 'params', 'template');
      return;
    }
    case 'send_template_message': {
      const channel = await findChannel(tx, orgId, a.params.channel);
      if (channel?.type !== 'whatsapp') {
        at(`no WhatsApp channel ${a.params.channel}`, 'params', 'channel');
        return;
      }
      if (!(await findWhatsAppTemplate(tx, orgId, channel.id, a.params.template)))
        at(`no template ${a.params.template} on this channel (documentId or name)`, 'params', 'template');
      return;
    }
    default:
      return;
  }
}

/**
 * `http_request` targets that are internal addresses (or names resolving to one) are refused when saved, before
 * the transaction (a DNS answer can take a moment); the runner's guarded fetch checks again when calling.
 */
export async function requirePublicTargets(
  allowlist: string | undefined,
  actions: AutomationInput['actions'],
) {
  for (const [i, a] of actions.entries())
    if (a.type === 'http_request')
      await requirePublicUrl(a.params.url, ['data', 'actions', i, 'params', 'url'], allowlist);
}
