/**
 * The agent tool server's `tools/list`: its size in tokens (o200k_base, the tokenizer of current OpenAI
 * models; other models' counts are close) and how long the server takes to answer it, cold and warm, over an
 * in-memory transport (no client-side validation in the figure). `npx tsx bench/mcp-tools-list.ts`
 */
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { buildServer } from '../src/mcp/build-server.js';
import type { ToolEnv } from '../src/mcp/tool-kit.js';

const env = { confirmation: 'person', confirmationTtlSeconds: 60 } as unknown as ToolEnv;

const t0 = performance.now();
const server = buildServer(env, { separator: '.' });
const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
type Answer = { result?: { tools: Tool[] } };
const waiting = new Map<number, (m: Answer) => void>();
clientSide.onmessage = (m) => {
  if ('id' in m && typeof m.id === 'number') waiting.get(m.id)?.(m as Answer);
};
await clientSide.start();
let nextId = 1;
const rpc = (method: string, params: Record<string, unknown> = {}) =>
  new Promise<Answer>((resolve) => {
    const id = nextId++;
    waiting.set(id, resolve);
    void clientSide.send({ jsonrpc: '2.0', id, method, params });
  });
await rpc('initialize', {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'bench', version: '1' },
});
const times: number[] = [];
let tools: Tool[] = [];
for (let i = 0; i < 50; i++) {
  const start = performance.now();
  tools = (await rpc('tools/list')).result?.tools ?? [];
  times.push(performance.now() - start);
}
const cold = performance.now() - t0;
const sorted = [...times].sort((x, y) => x - y);
const tokens = (v: unknown) => countTokens(JSON.stringify(v));
console.log(
  '| tools | tokens | input schemas | output schemas | descriptions | cold ms (build + first list) | warm median ms | warm max ms |',
);
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
console.log(
  `| ${tools.length} | ${tokens({ tools })} | ${tokens(tools.map((t) => t.inputSchema))} | ${tokens(tools.map((t) => t.outputSchema ?? {}))} | ${tokens(tools.map((t) => t.description ?? ''))} | ${cold.toFixed(0)} | ${sorted[25].toFixed(2)} | ${sorted.at(-1)?.toFixed(2)} |`,
);
const largest = tools
  .map((t) => ({ name: t.name, tokens: tokens(t) }))
  .sort((x, y) => y.tokens - x.tokens)
  .slice(0, 6);
console.log(`largest: ${largest.map((p) => `${p.name} ${p.tokens}`).join(', ')}`);
await server.close();
