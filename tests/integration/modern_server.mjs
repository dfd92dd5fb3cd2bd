// A stdio or Streamable HTTP MCP server on the TypeScript SDK v2 (@modelcontextprotocol/server,
// pinned by .ci/install-mcp-reference-servers.sh) that speaks only the 2026-07-28 protocol: it
// answers the older initialize handshake with -32022 ("unsupported protocol version"), as the SDK
// does with `legacy: 'reject'`. Tests only.
//
//   node modern_server.mjs stdio
//   node modern_server.mjs http PORT      (Streamable HTTP at http://127.0.0.1:PORT/mcp)
//
// Run from a folder whose node_modules holds the SDK (the tests link it beside a copy of this file).
import { createServer } from 'node:http';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod/v4';

const PODS = {
  shop: 'NAME                   READY  STATUS            RESTARTS  AGE\n' +
        'cart-5d8f7b-q2w3e      1/1    Running           0         2d\n' +
        'orders-6c9d4f-r4t5y    0/1    CrashLoopBackOff  12        2d\n',
};

function factory() {
  const server = new McpServer({ name: 'modern-only', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool('list_pods', {
    description: 'List the pods of a namespace as a table.',
    inputSchema: z.object({ namespace: z.string() }),
    annotations: { readOnlyHint: true },
  }, async ({ namespace }) => ({ content: [{ type: 'text', text: PODS[namespace] ?? `no pods in ${namespace}\n` }] }));
  server.registerTool('pod_logs', {
    description: "A pod's last log lines.",
    inputSchema: z.object({ namespace: z.string(), name: z.string() }),
    annotations: { readOnlyHint: true },
  }, async ({ name }) => ({ content: [{ type: 'text', text: `${name}: FATAL cannot reach postgres:5432\n` }] }));
  return server;
}

const [mode, port] = process.argv.slice(2);
if (mode === 'stdio') {
  serveStdio(factory, { legacy: 'reject' });
} else if (mode === 'http') {
  const handler = createMcpHandler(factory, { legacy: 'reject' });
  createServer(toNodeHandler(handler)).listen(Number(port), '127.0.0.1', () => {
    process.stderr.write(`listening on http://127.0.0.1:${port}/mcp\n`);
  });
} else {
  process.stderr.write('usage: node modern_server.mjs stdio | http PORT\n');
  process.exit(2);
}
