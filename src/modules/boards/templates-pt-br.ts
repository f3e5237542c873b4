import { DEFAULT_TASK_STATUSES } from './table.js';
import { type BoardTemplate, field, phases } from './template-parts.js';

/**
 * The pt-BR versions of the catalogue: their own ids (a client picks the language by id, or lists one language
 * with `GET /board-templates?locale=pt-BR`), names, labels and options in Portuguese, BRL as the currency.
 * Phase, field and tag slugs are Portuguese too: they are what API clients and card `fields` keys use.
 */

const funilDeVendas: BoardTemplate = {
  id: 'funil-de-vendas',
  locale: 'pt-BR',
  name: 'Funil de vendas',
  description: 'Qualifique leads, envie propostas e negocie até ganhar ou perder o negócio.',
  boardType: 'kanban',
  icon: 'dollar-sign',
  color: '#2E7D32',
  taskStatuses: DEFAULT_TASK_STATUSES,
  boardSettings: {
    showValue: true,
    currency: 'BRL',
    wonPhase: 'ganho',
    lostPhase: 'perdido',
    autoUpdateDueDateFromPhase: true,
  },
  phases: phases([
    {
      name: 'Novo lead',
      slug: 'novo-lead',
      color: '#1E88E5',
      description: 'Leads do formulário do site e de importações.',
      sla: 24,
      blocked: ['ganho'],
      fields: [
        field('Nome completo', 'nome-completo', 'text', { required: true, placeholder: 'Maria da Silva' }),
        field('E-mail', 'email', 'email', { required: true, placeholder: 'maria@empresa.com.br' }),
        field('Telefone', 'telefone', 'phone', { placeholder: '(11) 98765-4321' }),
        field('Empresa', 'empresa', 'text'),
        field('CPF ou CNPJ', 'documento', 'document'),
        field('Porte da empresa', 'porte', 'select', {
          options: ['1-10', '11-50', '51-200', '201-1000', '1000+'],
        }),
        field('Como nos conheceu?', 'origem', 'radio', {
          options: [
            { value: 'busca', label: 'Busca na internet' },
            { value: 'indicacao', label: 'Indicação' },
            { value: 'redes-sociais', label: 'Redes sociais' },
            { value: 'evento', label: 'Evento' },
          ],
        }),
        field('Mensagem', 'mensagem', 'textarea'),
        field('Aceito ser contatado', 'consentimento', 'checkbox', { required: true }),
      ],
    },
    {
      name: 'Qualificação',
      slug: 'qualificacao',
      color: '#3949AB',
      sla: 72,
      blocked: ['ganho'],
      fields: [
        field('Orçamento', 'orcamento', 'currency', { required: true }),
        field('Fala com o decisor', 'decisor', 'switch'),
        field('Previsão de fechamento', 'previsao-fechamento', 'date'),
        field('Necessidades', 'necessidades', 'multiselect', {
          options: ['Software', 'Serviços', 'Treinamento', 'Suporte'],
        }),
      ],
    },
    {
      name: 'Proposta',
      slug: 'proposta',
      color: '#8E24AA',
      sla: 120,
      fields: [
        field('Condição de pagamento', 'condicao-pagamento', 'select', {
          required: true,
          options: ['À vista', '30 dias', '30/60/90', '12x no cartão'],
        }),
        field('Documento da proposta', 'arquivo-proposta', 'file'),
        field('Link da proposta', 'link-proposta', 'url'),
        field('Desconto (%)', 'desconto', 'number', { defaultValue: '0' }),
      ],
    },
    {
      name: 'Negociação',
      slug: 'negociacao',
      color: '#FB8C00',
      sla: 168,
      fields: [
        field('Próxima reunião', 'proxima-reuniao', 'datetime'),
        field('Observações', 'observacoes', 'richtext'),
      ],
    },
    {
      name: 'Ganho',
      slug: 'ganho',
      color: '#43A047',
      fields: [field('Contrato assinado em', 'assinado-em', 'date')],
    },
    {
      name: 'Perdido',
      slug: 'perdido',
      color: '#757575',
      fields: [
        field('Motivo da perda', 'motivo-perda', 'select', {
          options: ['Preço', 'Concorrente', 'Sem orçamento', 'Sem resposta', 'Outro'],
        }),
      ],
    },
  ]),
  tags: [
    { name: 'Quente', slug: 'quente', color: '#D32F2F' },
    { name: 'Morno', slug: 'morno', color: '#F57C00' },
    { name: 'Frio', slug: 'frio', color: '#1976D2' },
    { name: 'Grande conta', slug: 'grande-conta', color: '#6A1B9A' },
  ],
};

const recrutamento: BoardTemplate = {
  id: 'recrutamento',
  locale: 'pt-BR',
  name: 'Recrutamento',
  description: 'Leve candidaturas da triagem às entrevistas até a proposta.',
  boardType: 'kanban',
  icon: 'users',
  color: '#1565C0',
  taskStatuses: DEFAULT_TASK_STATUSES,
  boardSettings: {
    showValue: false,
    currency: 'BRL',
    wonPhase: 'contratado',
    lostPhase: 'reprovado',
    autoUpdateDueDateFromPhase: false,
  },
  phases: phases([
    {
      name: 'Candidatura',
      slug: 'candidatura',
      color: '#1E88E5',
      description: 'O formulário público de candidatura.',
      fields: [
        field('Nome completo', 'nome-completo', 'text', { required: true }),
        field('E-mail', 'email', 'email', { required: true }),
        field('Telefone', 'telefone', 'phone'),
        field('Vaga', 'vaga', 'select', {
          required: true,
          options: ['Engenharia', 'Design', 'Vendas', 'Suporte', 'Operações'],
        }),
        field('Currículo', 'curriculo', 'file', { required: true, helpText: 'PDF, até 10 MB' }),
        field('Perfil no LinkedIn', 'linkedin', 'url'),
        field('CPF', 'cpf', 'document'),
        field('Disponível a partir de', 'disponivel-em', 'date'),
        field('Origem', 'origem', 'hidden', { defaultValue: 'pagina-de-carreiras' }),
      ],
    },
    {
      name: 'Triagem',
      slug: 'triagem',
      color: '#3949AB',
      sla: 72,
      fields: [
        field('Nota da triagem', 'nota-triagem', 'number', { helpText: 'de 1 a 5' }),
        field('Pretensão salarial', 'pretensao-salarial', 'currency'),
      ],
    },
    {
      name: 'Entrevista',
      slug: 'entrevista',
      color: '#8E24AA',
      sla: 240,
      fields: [
        field('Entrevista em', 'entrevista-em', 'datetime'),
        field('Horário de início', 'horario-entrevista', 'time'),
        field('Notas da entrevista', 'notas-entrevista', 'richtext'),
      ],
    },
    {
      name: 'Proposta',
      slug: 'proposta',
      color: '#FB8C00',
      sla: 120,
      fields: [field('Proposta aceita', 'proposta-aceita', 'switch')],
    },
    {
      name: 'Contratado',
      slug: 'contratado',
      color: '#43A047',
      fields: [field('Data de início', 'data-inicio', 'date')],
    },
    { name: 'Reprovado', slug: 'reprovado', color: '#757575', blocked: ['contratado'] },
  ]),
  tags: [
    { name: 'Indicação', slug: 'indicacao', color: '#00897B' },
    { name: 'Sênior', slug: 'senior', color: '#5E35B1' },
    { name: 'Remoto', slug: 'remoto', color: '#039BE5' },
  ],
};

const atendimento: BoardTemplate = {
  id: 'atendimento-ao-cliente',
  locale: 'pt-BR',
  name: 'Atendimento ao cliente',
  description: 'Faça a triagem, trate e resolva as solicitações dos clientes dentro do SLA.',
  boardType: 'hybrid',
  icon: 'life-buoy',
  color: '#EF6C00',
  taskStatuses: DEFAULT_TASK_STATUSES,
  boardSettings: {
    showValue: false,
    currency: 'BRL',
    wonPhase: 'resolvido',
    lostPhase: null,
    autoUpdateDueDateFromPhase: true,
  },
  phases: phases([
    {
      name: 'Nova solicitação',
      slug: 'nova-solicitacao',
      color: '#1E88E5',
      sla: 4,
      fields: [
        field('Nome', 'nome', 'text', { required: true }),
        field('E-mail', 'email', 'email', { required: true }),
        field('Assunto', 'assunto', 'text', { required: true }),
        field('Categoria', 'categoria', 'select', {
          options: ['Financeiro', 'Técnico', 'Conta', 'Outro'],
        }),
        field('Prioridade', 'prioridade', 'radio', {
          defaultValue: 'normal',
          options: [
            { value: 'baixa', label: 'Baixa' },
            { value: 'normal', label: 'Normal' },
            { value: 'alta', label: 'Alta' },
            { value: 'urgente', label: 'Urgente' },
          ],
        }),
        field('Descrição', 'descricao', 'textarea', { required: true }),
        field('Captura de tela', 'captura-tela', 'file'),
        field('Descreva os passos para reproduzir', 'passos-instrucao', 'statement'),
      ],
    },
    {
      name: 'Triagem',
      slug: 'triagem',
      color: '#FB8C00',
      sla: 8,
      fields: [
        field('Pedido relacionado', 'card-relacionado', 'card_link'),
        field('Afeta muitos clientes', 'abrangente', 'switch'),
      ],
    },
    {
      name: 'Em andamento',
      slug: 'em-andamento',
      color: '#3949AB',
      sla: 48,
      fields: [field('Notas internas', 'notas-internas', 'richtext')],
    },
    { name: 'Aguardando cliente', slug: 'aguardando-cliente', color: '#F9A825', sla: 120 },
    {
      name: 'Resolvido',
      slug: 'resolvido',
      color: '#43A047',
      fields: [field('Solução', 'solucao', 'textarea'), field('Satisfeito', 'satisfeito', 'checkbox')],
    },
  ]),
  tags: [
    { name: 'Defeito', slug: 'defeito', color: '#C62828' },
    { name: 'Sugestão', slug: 'sugestao', color: '#2E7D32' },
    { name: 'VIP', slug: 'vip', color: '#FBC02D' },
  ],
};

const implantacao: BoardTemplate = {
  id: 'implantacao-de-clientes',
  locale: 'pt-BR',
  name: 'Implantação de clientes',
  description: 'Leve novos clientes do kickoff ao go-live.',
  boardType: 'kanban',
  icon: 'rocket',
  color: '#6A1B9A',
  taskStatuses: ['pending', 'in-progress', 'blocked', 'completed', 'cancelled'],
  boardSettings: {
    showValue: true,
    currency: 'BRL',
    wonPhase: 'em-producao',
    lostPhase: 'cancelado',
    autoUpdateDueDateFromPhase: true,
  },
  phases: phases([
    {
      name: 'Contrato assinado',
      slug: 'contrato-assinado',
      color: '#1E88E5',
      fields: [
        field('Cliente', 'cliente', 'text', { required: true }),
        field('E-mail do contato principal', 'email-contato', 'email', { required: true }),
        field('Valor do contrato', 'valor-contrato', 'currency'),
        field('Plano', 'plano', 'select', { options: ['Inicial', 'Crescimento', 'Corporativo'] }),
      ],
    },
    {
      name: 'Kickoff',
      slug: 'kickoff',
      color: '#3949AB',
      sla: 72,
      fields: [
        field('Reunião de kickoff', 'kickoff-em', 'datetime'),
        field('Objetivos', 'objetivos', 'textarea'),
      ],
    },
    {
      name: 'Configuração',
      slug: 'configuracao',
      color: '#8E24AA',
      sla: 336,
      fields: [
        field('Integrações', 'integracoes', 'multiselect', {
          options: ['E-mail', 'Agenda', 'Chat', 'ERP'],
        }),
        field('Dados importados', 'dados-importados', 'switch'),
      ],
    },
    {
      name: 'Treinamento',
      slug: 'treinamento',
      color: '#FB8C00',
      sla: 168,
      fields: [field('Data do treinamento', 'data-treinamento', 'date')],
    },
    {
      name: 'Em produção',
      slug: 'em-producao',
      color: '#43A047',
      fields: [field('Data do go-live', 'data-go-live', 'date')],
    },
    { name: 'Cancelado', slug: 'cancelado', color: '#757575' },
  ]),
  tags: [
    { name: 'Em risco', slug: 'em-risco', color: '#D84315' },
    { name: 'Estratégico', slug: 'estrategico', color: '#283593' },
  ],
};

export const BOARD_TEMPLATES_PT_BR: readonly BoardTemplate[] = [
  funilDeVendas,
  recrutamento,
  atendimento,
  implantacao,
];
