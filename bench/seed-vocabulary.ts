/** The bench's vocabulary: Brazilian names, companies, cities and valid tax ids, for bench/seed.ts. */
import { parseCnpj, parseCpf } from '../src/modules/contacts/documents.js';
import { segmentInput } from '../src/modules/segments/schema.js';
import { int, pick, type Rng, weighted } from './lib.js';
// ---- vocabulary (Brazilian CRM data)

export const FIRST = [
  'Ana',
  'Maria',
  'João',
  'José',
  'Pedro',
  'Paulo',
  'Lucas',
  'Mariana',
  'Juliana',
  'Fernanda',
  'Carlos',
  'Rafael',
  'Gabriel',
  'Beatriz',
  'Larissa',
  'Camila',
  'Bruno',
  'Diego',
  'Felipe',
  'Gustavo',
  'Helena',
  'Isabela',
  'Letícia',
  'Marcos',
  'Natália',
  'Otávio',
  'Patrícia',
  'Renata',
  'Sérgio',
  'Tatiana',
  'Vinícius',
  'Yasmin',
];
export const LAST = [
  'Silva',
  'Santos',
  'Oliveira',
  'Souza',
  'Rodrigues',
  'Ferreira',
  'Alves',
  'Pereira',
  'Lima',
  'Gomes',
  'Costa',
  'Ribeiro',
  'Martins',
  'Carvalho',
  'Almeida',
  'Lopes',
  'Soares',
  'Fernandes',
  'Vieira',
  'Barbosa',
  'Rocha',
  'Dias',
  'Nascimento',
  'Andrade',
  'Moreira',
  'Nunes',
  'Marques',
  'Machado',
  'Mendes',
  'Freitas',
];
export const COMPANY = [
  'Acme',
  'Globex',
  'Initech',
  'Umbrella',
  'Stark',
  'Wayne',
  'Tyrell',
  'Cyberdyne',
  'Soylent',
  'Hooli',
  'Vandelay',
  'Massive',
  'Pied Piper',
  'Aperture',
  'Oscorp',
  'Wonka',
  'Gringotts',
  'Dunder',
  'Prestige',
  'Monarch',
  'Nakatomi',
  'Virtucon',
  'Zorg',
  'Gekko',
  'Sirius',
  'Rekall',
  'Ollivander',
  'Bluth',
  'Krusty',
  'Sterling',
  'Paper Street',
  'Blue Sun',
  'Weyland',
  'Yoyodyne',
  'Duff',
  'Kwik',
  'Lacuna',
  'Omni',
  'Praxis',
  'Quark',
];
export const SUFFIX = [
  'Ltda',
  'S.A.',
  'Comércio',
  'Serviços',
  'Tecnologia',
  'Indústria',
  'Consultoria',
  'Logística',
];
export const PRODUCT = [
  'licença anual',
  'implantação',
  'suporte premium',
  'renovação',
  'expansão',
  'treinamento',
  'consultoria',
  'piloto',
  'upgrade',
  'integração',
];
export const CITIES: [string, string][] = [
  ['São Paulo', 'SP'],
  ['Rio de Janeiro', 'RJ'],
  ['Belo Horizonte', 'MG'],
  ['Curitiba', 'PR'],
  ['Porto Alegre', 'RS'],
  ['Salvador', 'BA'],
  ['Recife', 'PE'],
  ['Fortaleza', 'CE'],
  ['Brasília', 'DF'],
  ['Campinas', 'SP'],
  ['Florianópolis', 'SC'],
  ['Goiânia', 'GO'],
  ['Manaus', 'AM'],
];
export const STREETS = [
  'Rua das Flores',
  'Av. Paulista',
  'Rua XV de Novembro',
  'Av. Brasil',
  'Rua da Consolação',
  'Av. Atlântica',
  'Rua Augusta',
  'Av. Sete de Setembro',
];
export const DOMAINS = [
  'gmail.com',
  'hotmail.com',
  'outlook.com',
  'yahoo.com.br',
  'uol.com.br',
  'empresa.com.br',
];
export const PLANS = ['gold', 'silver', 'bronze', 'trial'];
export const ORIGINS = ['site', 'indicacao', 'evento', 'outbound', 'parceiro', 'anuncio'];
const INTERESTS = ['crm', 'erp', 'bi', 'suporte', 'marketing'];
export const TAGS = [
  'quente',
  'frio',
  'vip',
  'retorno',
  'urgente',
  'parceria',
  'renovacao',
  'upsell',
  'enterprise',
  'pme',
  'governo',
  'educacao',
];
export const TAG_COLORS = ['#E53935', '#1E88E5', '#43A047', '#FB8C00', '#8E24AA', '#00ACC1'];
export const PHASES = [
  { name: 'Entrada', slug: 'entrada', sla: null, weight: 25 },
  { name: 'Qualificação', slug: 'qualificacao', sla: 72, weight: 20 },
  { name: 'Proposta', slug: 'proposta', sla: 120, weight: 15 },
  { name: 'Negociação', slug: 'negociacao', sla: null, weight: 10 },
  { name: 'Ganho', slug: 'ganho', sla: null, weight: 15 },
  { name: 'Perdido', slug: 'perdido', sla: null, weight: 15 },
] as const;
/** Dynamic fields: the phase (by order) that owns each, its type and options. */
export const FIELDS = [
  { phase: 0, label: 'Empresa', slug: 'empresa', type: 'text', required: true },
  { phase: 0, label: 'E-mail de contato', slug: 'email_contato', type: 'email' },
  { phase: 0, label: 'Origem', slug: 'origem', type: 'select', options: ORIGINS },
  { phase: 0, label: 'Telefone', slug: 'telefone', type: 'phone' },
  { phase: 1, label: 'Funcionários', slug: 'funcionarios', type: 'number' },
  { phase: 1, label: 'Interesses', slug: 'interesses', type: 'multiselect', options: INTERESTS },
  { phase: 1, label: 'Prioritário', slug: 'prioritario', type: 'switch' },
  { phase: 2, label: 'Orçamento', slug: 'orcamento', type: 'currency' },
  { phase: 2, label: 'Data da proposta', slug: 'data_proposta', type: 'date' },
  { phase: 3, label: 'Fechamento previsto', slug: 'fechamento_previsto', type: 'datetime' },
] as const;

// ---- Brazilian tax ids with valid check digits (same algorithm as src/modules/contacts/documents.ts)

function checkDigit(values: number[], weights: number[]) {
  const rest = values.reduce((acc, v, i) => acc + v * weights[i], 0) % 11;
  return rest < 2 ? 0 : 11 - rest;
}
/** The i-th CPF of an organization: distinct for every i (multiplying by 3^18 permutes 0..10^9-1). */
export function cpfFor(i: number, salt: number): string | null {
  const base = String((BigInt(i) * 387420489n + BigInt(salt)) % 1_000_000_000n).padStart(9, '0');
  const d = [...base].map(Number);
  d.push(checkDigit(d, [10, 9, 8, 7, 6, 5, 4, 3, 2]));
  d.push(checkDigit(d, [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]));
  return parseCpf(d.join('')); // null for the few all-same-digit numbers
}
/** The i-th CNPJ (headquarters, branch 0001): distinct for every i < 10^8. */
export function cnpjFor(i: number, salt: number): string | null {
  const root = String((BigInt(i) * 43046721n + BigInt(salt)) % 100_000_000n).padStart(8, '0');
  const d = [...`${root}0001`].map(Number);
  d.push(checkDigit(d, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]));
  d.push(checkDigit(d, [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]));
  return parseCnpj(d.join(''));
}

export const ascii = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '.');
export const iso = (ms: number) => new Date(ms).toISOString();
export const phone = (rng: Rng) =>
  `+55${int(rng, 11, 99)}9${String(int(rng, 0, 99_999_999)).padStart(8, '0')}`;

// ---- segment definitions (created through the segments service by bench/seed.ts)

export function segmentDefinitions(rng: Rng, n: number, owner: { documentId: string }) {
  const defs: unknown[] = [
    {
      name: 'SP gold com gmail',
      description: 'the 3-condition segment the bench counts',
      filters: {
        logic: 'AND',
        conditions: [
          { field: 'state', op: 'eq', value: 'SP' },
          { kind: 'custom', slug: 'plano', op: 'eq', value: 'gold' },
          { field: 'email', op: 'contains', value: 'gmail' },
        ],
      },
    },
  ];
  for (let i = 1; i < n; i++) {
    const conditions = [];
    const k = int(rng, 1, 4);
    for (let j = 0; j < k; j++) {
      const kind = weighted(rng, [
        ['field', 6],
        ['custom', 3],
        ['relation', 1],
      ] as const);
      if (kind === 'relation')
        conditions.push({ kind: 'relation', field: 'owner', documentId: owner.documentId });
      else if (kind === 'custom')
        conditions.push({ kind: 'custom', slug: 'plano', op: 'eq', value: pick(rng, PLANS) });
      else {
        const [field, op, value] = pick(rng, [
          ['state', 'eq', pick(rng, CITIES)[1]],
          ['city', 'eq', pick(rng, CITIES)[0]],
          ['email', 'endsWith', pick(rng, DOMAINS)],
          ['name', 'contains', pick(rng, LAST)],
          ['contact_type', 'eq', pick(rng, ['pessoa', 'empresa'])],
          ['phone', 'startsWith', `+55${int(rng, 11, 99)}`],
          ['cpf', 'notEmpty', undefined],
        ] as const);
        conditions.push(value === undefined ? { field, op } : { field, op, value });
      }
    }
    defs.push({ name: `Segmento ${i + 1}`, filters: { logic: rng() < 0.7 ? 'AND' : 'OR', conditions } });
  }
  return defs.map((d) => segmentInput.parse(d));
}
