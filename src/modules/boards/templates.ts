import { DEFAULT_TASK_STATUSES } from './table.js';
import { type BoardTemplate, field, phases } from './template-parts.js';
import { BOARD_TEMPLATES_PT_BR } from './templates-pt-br.js';

export type { BoardTemplate } from './template-parts.js';

const salesFunnel: BoardTemplate = {
  id: 'sales-funnel',
  locale: 'en',
  name: 'Sales funnel',
  description: 'Qualify leads, send proposals and negotiate until the deal is won or lost.',
  boardType: 'kanban',
  icon: 'dollar-sign',
  color: '#2E7D32',
  taskStatuses: DEFAULT_TASK_STATUSES,
  boardSettings: {
    showValue: true,
    currency: 'USD',
    wonPhase: 'won',
    lostPhase: 'lost',
    autoUpdateDueDateFromPhase: true,
  },
  phases: phases([
    {
      name: 'New lead',
      slug: 'new-lead',
      color: '#1E88E5',
      description: 'Leads from the website form and imports.',
      sla: 24,
      blocked: ['won'],
      fields: [
        field('Full name', 'full-name', 'text', { required: true, placeholder: 'Jane Doe' }),
        field('Email', 'email', 'email', { required: true, placeholder: 'jane@company.com' }),
        field('Phone', 'phone', 'phone'),
        field('Company', 'company', 'text'),
        field('Company size', 'company-size', 'select', {
          options: ['1-10', '11-50', '51-200', '201-1000', '1000+'],
        }),
        field('How did you hear about us?', 'lead-source', 'radio', {
          options: [
            { value: 'search', label: 'Search engine' },
            { value: 'referral', label: 'Referral' },
            { value: 'social', label: 'Social media' },
            { value: 'event', label: 'Event' },
          ],
        }),
        field('Message', 'message', 'textarea'),
        field('I agree to be contacted', 'consent', 'checkbox', { required: true }),
      ],
    },
    {
      name: 'Qualification',
      slug: 'qualification',
      color: '#3949AB',
      sla: 72,
      blocked: ['won'],
      fields: [
        field('Budget', 'budget', 'currency', { required: true }),
        field('Decision maker', 'decision-maker', 'switch'),
        field('Expected close date', 'expected-close-date', 'date'),
        field('Needs', 'needs', 'multiselect', { options: ['Software', 'Services', 'Training', 'Support'] }),
      ],
    },
    {
      name: 'Proposal',
      slug: 'proposal',
      color: '#8E24AA',
      sla: 120,
      fields: [
        field('Proposal document', 'proposal-file', 'file'),
        field('Proposal link', 'proposal-url', 'url'),
        field('Discount (%)', 'discount', 'number', { defaultValue: '0' }),
      ],
    },
    {
      name: 'Negotiation',
      slug: 'negotiation',
      color: '#FB8C00',
      sla: 168,
      fields: [
        field('Next meeting', 'next-meeting', 'datetime'),
        field('Notes', 'negotiation-notes', 'richtext'),
      ],
    },
    {
      name: 'Won',
      slug: 'won',
      color: '#43A047',
      fields: [field('Contract signed on', 'signed-on', 'date')],
    },
    {
      name: 'Lost',
      slug: 'lost',
      color: '#757575',
      fields: [
        field('Loss reason', 'loss-reason', 'select', {
          options: ['Price', 'Competitor', 'No budget', 'No response', 'Other'],
        }),
      ],
    },
  ]),
  tags: [
    { name: 'Hot', slug: 'hot', color: '#D32F2F' },
    { name: 'Warm', slug: 'warm', color: '#F57C00' },
    { name: 'Cold', slug: 'cold', color: '#1976D2' },
    { name: 'Enterprise', slug: 'enterprise', color: '#6A1B9A' },
  ],
};

const recruiting: BoardTemplate = {
  id: 'recruiting',
  locale: 'en',
  name: 'Recruiting',
  description: 'Take applications through screening and interviews to an offer.',
  boardType: 'kanban',
  icon: 'users',
  color: '#1565C0',
  taskStatuses: DEFAULT_TASK_STATUSES,
  boardSettings: {
    showValue: false,
    currency: 'USD',
    wonPhase: 'hired',
    lostPhase: 'rejected',
    autoUpdateDueDateFromPhase: false,
  },
  phases: phases([
    {
      name: 'Application',
      slug: 'application',
      color: '#1E88E5',
      description: 'The public application form.',
      fields: [
        field('Full name', 'full-name', 'text', { required: true }),
        field('Email', 'email', 'email', { required: true }),
        field('Phone', 'phone', 'phone'),
        field('Position', 'position', 'select', {
          required: true,
          options: ['Engineering', 'Design', 'Sales', 'Support', 'Operations'],
        }),
        field('Résumé', 'resume', 'file', { required: true, helpText: 'PDF, at most 10 MB' }),
        field('LinkedIn profile', 'linkedin', 'url'),
        field('Tax id', 'tax-id', 'document'),
        field('Available from', 'available-from', 'date'),
        field('Source', 'source', 'hidden', { defaultValue: 'careers-page' }),
      ],
    },
    {
      name: 'Screening',
      slug: 'screening',
      color: '#3949AB',
      sla: 72,
      fields: [
        field('Screening score', 'screening-score', 'number', { helpText: '1 to 5' }),
        field('Salary expectation', 'salary-expectation', 'currency'),
      ],
    },
    {
      name: 'Interview',
      slug: 'interview',
      color: '#8E24AA',
      sla: 240,
      fields: [
        field('Interview at', 'interview-at', 'datetime'),
        field('Interview start time', 'interview-time', 'time'),
        field('Interview notes', 'interview-notes', 'richtext'),
      ],
    },
    {
      name: 'Offer',
      slug: 'offer',
      color: '#FB8C00',
      sla: 120,
      fields: [field('Offer accepted', 'offer-accepted', 'switch')],
    },
    { name: 'Hired', slug: 'hired', color: '#43A047', fields: [field('Start date', 'start-date', 'date')] },
    { name: 'Rejected', slug: 'rejected', color: '#757575', blocked: ['hired'] },
  ]),
  tags: [
    { name: 'Referral', slug: 'referral', color: '#00897B' },
    { name: 'Senior', slug: 'senior', color: '#5E35B1' },
    { name: 'Remote', slug: 'remote', color: '#039BE5' },
  ],
};

const customerSupport: BoardTemplate = {
  id: 'customer-support',
  locale: 'en',
  name: 'Customer support',
  description: 'Triage, work and resolve customer requests within their SLA.',
  boardType: 'hybrid',
  icon: 'life-buoy',
  color: '#EF6C00',
  taskStatuses: DEFAULT_TASK_STATUSES,
  boardSettings: {
    showValue: false,
    currency: 'USD',
    wonPhase: 'resolved',
    lostPhase: null,
    autoUpdateDueDateFromPhase: true,
  },
  phases: phases([
    {
      name: 'New request',
      slug: 'new-request',
      color: '#1E88E5',
      sla: 4,
      fields: [
        field('Name', 'name', 'text', { required: true }),
        field('Email', 'email', 'email', { required: true }),
        field('Subject', 'subject', 'text', { required: true }),
        field('Category', 'category', 'select', { options: ['Billing', 'Technical', 'Account', 'Other'] }),
        field('Priority', 'priority', 'radio', {
          defaultValue: 'normal',
          options: [
            { value: 'low', label: 'Low' },
            { value: 'normal', label: 'Normal' },
            { value: 'high', label: 'High' },
            { value: 'urgent', label: 'Urgent' },
          ],
        }),
        field('Description', 'description', 'textarea', { required: true }),
        field('Screenshot', 'screenshot', 'file'),
        field('Please describe the steps to reproduce', 'steps-statement', 'statement'),
      ],
    },
    {
      name: 'Triage',
      slug: 'triage',
      color: '#FB8C00',
      sla: 8,
      fields: [
        field('Related order', 'related-card', 'card_link'),
        field('Affects many customers', 'widespread', 'switch'),
      ],
    },
    {
      name: 'In progress',
      slug: 'in-progress',
      color: '#3949AB',
      sla: 48,
      fields: [field('Internal notes', 'internal-notes', 'richtext')],
    },
    { name: 'Waiting on customer', slug: 'waiting-on-customer', color: '#F9A825', sla: 120 },
    {
      name: 'Resolved',
      slug: 'resolved',
      color: '#43A047',
      fields: [field('Resolution', 'resolution', 'textarea'), field('Satisfied', 'satisfied', 'checkbox')],
    },
  ]),
  tags: [
    { name: 'Bug', slug: 'bug', color: '#C62828' },
    { name: 'Feature request', slug: 'feature-request', color: '#2E7D32' },
    { name: 'VIP', slug: 'vip', color: '#FBC02D' },
  ],
};

const onboarding: BoardTemplate = {
  id: 'onboarding',
  locale: 'en',
  name: 'Customer onboarding',
  description: 'Bring new customers from kickoff to go-live.',
  boardType: 'kanban',
  icon: 'rocket',
  color: '#6A1B9A',
  taskStatuses: ['pending', 'in-progress', 'blocked', 'completed', 'cancelled'],
  boardSettings: {
    showValue: true,
    currency: 'USD',
    wonPhase: 'live',
    lostPhase: 'churned',
    autoUpdateDueDateFromPhase: true,
  },
  phases: phases([
    {
      name: 'Signed',
      slug: 'signed',
      color: '#1E88E5',
      fields: [
        field('Customer', 'customer', 'text', { required: true }),
        field('Main contact email', 'contact-email', 'email', { required: true }),
        field('Contract value', 'contract-value', 'currency'),
        field('Plan', 'plan', 'select', { options: ['Starter', 'Growth', 'Enterprise'] }),
      ],
    },
    {
      name: 'Kickoff',
      slug: 'kickoff',
      color: '#3949AB',
      sla: 72,
      fields: [field('Kickoff meeting', 'kickoff-at', 'datetime'), field('Goals', 'goals', 'textarea')],
    },
    {
      name: 'Setup',
      slug: 'setup',
      color: '#8E24AA',
      sla: 336,
      fields: [
        field('Integrations', 'integrations', 'multiselect', {
          options: ['Email', 'Calendar', 'Chat', 'ERP'],
        }),
        field('Data imported', 'data-imported', 'switch'),
      ],
    },
    {
      name: 'Training',
      slug: 'training',
      color: '#FB8C00',
      sla: 168,
      fields: [field('Training date', 'training-date', 'date')],
    },
    { name: 'Live', slug: 'live', color: '#43A047', fields: [field('Go-live date', 'go-live-date', 'date')] },
    { name: 'Churned', slug: 'churned', color: '#757575' },
  ]),
  tags: [
    { name: 'At risk', slug: 'at-risk', color: '#D84315' },
    { name: 'Strategic', slug: 'strategic', color: '#283593' },
  ],
};

/** English first, then the pt-BR versions (same phases and fields, own ids: templates-pt-br.ts). */
export const BOARD_TEMPLATES: readonly BoardTemplate[] = [
  salesFunnel,
  recruiting,
  customerSupport,
  onboarding,
  ...BOARD_TEMPLATES_PT_BR,
];

export function findTemplate(id: string): BoardTemplate | undefined {
  return BOARD_TEMPLATES.find((t) => t.id === id);
}
