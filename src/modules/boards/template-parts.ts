import type { z } from 'zod';
import type { boardTemplate } from './schema.js';
import type { FieldOption, FieldType } from './table.js';

/** The read-only catalogue of board templates (GET /board-templates, POST /boards { template }). */
export type BoardTemplate = z.infer<typeof boardTemplate>;
export type TemplateField = BoardTemplate['phases'][number]['fields'][number];
export type TemplatePhase = BoardTemplate['phases'][number];

export function field(
  label: string,
  slug: string,
  type: FieldType,
  extra: {
    required?: boolean;
    placeholder?: string;
    helpText?: string;
    defaultValue?: string;
    options?: FieldOption[];
  } = {},
): TemplateField {
  return {
    label,
    slug,
    type,
    required: extra.required ?? false,
    placeholder: extra.placeholder ?? null,
    helpText: extra.helpText ?? null,
    defaultValue: extra.defaultValue ?? null,
    options: extra.options ?? [],
  };
}

export function phases(
  list: {
    name: string;
    slug: string;
    description?: string;
    sla?: number;
    color?: string;
    blocked?: string[];
    isPublic?: boolean;
    fields?: TemplateField[];
  }[],
): TemplatePhase[] {
  return list.map((p, order) => ({
    name: p.name,
    slug: p.slug,
    order,
    isPublic: order === 0 || (p.isPublic ?? false),
    description: p.description ?? null,
    maxTimeInPhaseHours: p.sla ?? null,
    color: p.color ?? null,
    allowedTransitions: (p.blocked ?? []).map((target) => ({ phase: target, allowed: false })),
    fields: p.fields ?? [],
  }));
}
