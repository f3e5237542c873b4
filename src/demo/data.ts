/**
 * The demo organization's content, generated from a fixed seed: every run produces the same people,
 * companies, tax ids and deals (only dates move with "today", so that some due dates are always overdue).
 * Nothing here touches the database; seed.ts writes it through the services.
 */

import type { Prng } from '../platform/random.js';

function checkDigit(values: number[], weights: number[]): number {
  const rest = values.reduce((acc, v, i) => acc + v * weights[i], 0) % 11;
  return rest < 2 ? 0 : 11 - rest;
}

/** A valid CPF (bare, 11 digits): 9 random digits and their two check digits (Receita Federal rule). */
export function makeCpf(rand: Prng): string {
  let base: number[];
  do base = Array.from({ length: 9 }, () => rand.int(0, 9));
  while (base.every((d) => d === base[0])); // 111.111.111-xx and the like are refused
  const d1 = checkDigit(base, [10, 9, 8, 7, 6, 5, 4, 3, 2]);
  const d2 = checkDigit([...base, d1], [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
  return [...base, d1, d2].join('');
}

/** A valid numeric CNPJ (bare, 14 digits): 8 random digits, branch 0001, two check digits. */
export function makeCnpj(rand: Prng): string {
  const base = [...Array.from({ length: 8 }, () => rand.int(0, 9)), 0, 0, 0, 1];
  const d1 = checkDigit(base, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  const d2 = checkDigit([...base, d1], [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  return [...base, d1, d2].join('');
}

/** The masked form people type: 123.456.789-09, 12.345.678/0001-95. */
export const maskCpf = (c: string) => `${c.slice(0, 3)}.${c.slice(3, 6)}.${c.slice(6, 9)}-${c.slice(9)}`;
export const maskCnpj = (c: string) =>
  `${c.slice(0, 2)}.${c.slice(2, 5)}.${c.slice(5, 8)}/${c.slice(8, 12)}-${c.slice(12)}`;

// biome-ignore format: a list of names, kept compact
const FIRST = [
  'Ana', 'Bruno', 'Camila', 'Diego', 'Eduarda', 'Felipe', 'Gabriela', 'Henrique', 'Isabela', 'João',
  'Larissa', 'Lucas', 'Mariana', 'Mateus', 'Natália', 'Otávio', 'Patrícia', 'Rafael', 'Sofia', 'Thiago',
  'Vitória', 'Gustavo', 'Beatriz', 'Pedro', 'Letícia', 'Rodrigo', 'Juliana', 'Marcelo',
];
// biome-ignore format: a list of names, kept compact
const LAST = [
  'Silva', 'Santos', 'Oliveira', 'Souza', 'Rodrigues', 'Ferreira', 'Alves', 'Pereira', 'Lima', 'Gomes',
  'Costa', 'Ribeiro', 'Martins', 'Carvalho', 'Almeida', 'Lopes', 'Barbosa', 'Rocha', 'Dias', 'Nascimento',
];
// biome-ignore format: a list of names, kept compact
const COMPANIES = [
  'Padaria Pão Dourado', 'Construtora Horizonte', 'Farmácia Bem Viver', 'Auto Peças Rota 116',
  'Clínica Sorriso Pleno', 'Transportadora Via Sul', 'Mercado Bom Preço', 'Escola Aprender Mais',
  'Hotel Mar Azul', 'Agro Campo Verde', 'Tecelagem Fio de Ouro', 'Studio Criativo Ipê',
];
const SECTORS = [
  'Varejo',
  'Construção',
  'Saúde',
  'Indústria',
  'Serviços',
  'Educação',
  'Turismo',
  'Agronegócio',
];
const CITIES: readonly { city: string; state: string; ddd: string; cep: string }[] = [
  { city: 'São Paulo', state: 'SP', ddd: '11', cep: '01310-100' },
  { city: 'Campinas', state: 'SP', ddd: '19', cep: '13015-001' },
  { city: 'Rio de Janeiro', state: 'RJ', ddd: '21', cep: '20040-002' },
  { city: 'Belo Horizonte', state: 'MG', ddd: '31', cep: '30130-010' },
  { city: 'Curitiba', state: 'PR', ddd: '41', cep: '80010-000' },
  { city: 'Porto Alegre', state: 'RS', ddd: '51', cep: '90010-150' },
  { city: 'Salvador', state: 'BA', ddd: '71', cep: '40020-000' },
  { city: 'Recife', state: 'PE', ddd: '81', cep: '50010-000' },
];
const STREETS = ['Rua das Flores', 'Avenida Brasil', 'Rua XV de Novembro', 'Avenida Paulista', 'Rua da Paz'];

const ascii = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '.')
    .replace(/^\.|\.$/g, '');

export interface DemoContact {
  name: string;
  email: string;
  phone: string;
  contact_type: 'pessoa' | 'empresa';
  cpf?: string;
  cnpj?: string;
  address: string;
  city: string;
  state: string;
  country: string;
  postal_code: string;
  customFields: Record<string, string>;
}

export const DEMO_CONTACT_COUNT = 40;
const COMPANY_COUNT = COMPANIES.length;

/** 28 people (masked CPF, as typed) and 12 companies (masked CNPJ), in Brazilian cities. */
export function demoContacts(rand: Prng): DemoContact[] {
  const out: DemoContact[] = [];
  const used = new Set<string>();
  for (let i = 0; i < DEMO_CONTACT_COUNT; i++) {
    const place = CITIES[i % CITIES.length];
    const company = i < COMPANY_COUNT;
    let name: string;
    if (company) name = COMPANIES[i];
    else
      do name = `${rand.pick(FIRST)} ${rand.pick(LAST)}`;
      while (used.has(name));
    used.add(name);
    let tax: string;
    do tax = company ? makeCnpj(rand) : makeCpf(rand);
    while (used.has(tax));
    used.add(tax);
    const mobile = `9${rand.int(1000, 9999)}-${rand.int(1000, 9999)}`;
    out.push({
      name,
      email: company ? `contato@${ascii(name).replace(/\./g, '')}.com.br` : `${ascii(name)}@email.com.br`,
      phone: `(${place.ddd}) ${mobile}`,
      contact_type: company ? 'empresa' : 'pessoa',
      ...(company ? { cnpj: maskCnpj(tax) } : { cpf: maskCpf(tax) }),
      address: `${rand.pick(STREETS)}, ${rand.int(10, 2000)}`,
      city: place.city,
      state: place.state,
      country: 'BR',
      postal_code: place.cep,
      customFields: { setor: rand.pick(SECTORS) },
    });
  }
  return out;
}

/** Demo members beside the owner: assignees of cards and tasks, editors of the board. */
export const DEMO_MEMBERS = [
  { first: 'Ana', last: 'Souza', role: 'admin' },
  { first: 'Bruno', last: 'Lima', role: 'member' },
  { first: 'Carla', last: 'Mendes', role: 'member' },
] as const;

export const DEMO_CATEGORIES = ['Software', 'Serviços'] as const;
export const DEMO_PRODUCTS = [
  { sku: 'CRM-START', name: 'CRM Start (licença anual)', price: 1990, category: 'Software', unit: 'licença' },
  { sku: 'CRM-PRO', name: 'CRM Pro (licença anual)', price: 4990, category: 'Software', unit: 'licença' },
  { sku: 'CRM-USER', name: 'Usuário adicional (anual)', price: 390, category: 'Software', unit: 'usuário' },
  { sku: 'IMPL-H', name: 'Hora de implantação', price: 250, category: 'Serviços', unit: 'h' },
  { sku: 'TREIN', name: 'Treinamento da equipe (turma)', price: 1800, category: 'Serviços', unit: 'turma' },
] as const;

const DEAL_KINDS = [
  'Licenças CRM',
  'Implantação',
  'Renovação anual',
  'Treinamento',
  'Expansão de usuários',
  'Consultoria',
  'Integração ERP',
  'Projeto piloto',
];

export const CARDS_PER_PHASE = 60;

export interface DemoDeal {
  title: string;
  value: number;
  /** Days from today (negative: overdue). */
  dueInDays: number;
  contactIndex: number;
  assigneeIndex: number;
  tags: string[];
  origin: string;
  needs: string[];
  payment: string;
  lossReason: string;
}

/** The deals of one phase, in a stable order; about one in five is overdue. */
export function demoDeals(rand: Prng, contacts: DemoContact[], assignees: number): DemoDeal[] {
  const tags = ['quente', 'morno', 'frio'];
  return Array.from({ length: CARDS_PER_PHASE }, () => {
    const contactIndex = rand.int(0, contacts.length - 1);
    const big = rand.next() < 0.15;
    return {
      title: `${rand.pick(DEAL_KINDS)} — ${contacts[contactIndex].name}`,
      value: Math.round((big ? rand.int(50_000, 250_000) : rand.int(1_500, 45_000)) * 100) / 100,
      dueInDays: rand.next() < 0.2 ? -rand.int(1, 20) : rand.int(1, 45),
      contactIndex,
      assigneeIndex: rand.int(0, assignees - 1),
      tags: [rand.pick(tags), ...(big ? ['grande-conta'] : [])],
      origin: rand.pick(['busca', 'indicacao', 'redes-sociais', 'evento']),
      needs: ['Software', 'Serviços', 'Treinamento', 'Suporte'].filter(() => rand.next() < 0.5),
      payment: rand.pick(['À vista', '30 dias', '30/60/90', '12x no cartão']),
      lossReason: rand.pick(['Preço', 'Concorrente', 'Sem orçamento', 'Sem resposta', 'Outro']),
    };
  });
}
