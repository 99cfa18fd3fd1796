// SPDX-License-Identifier: MIT
// The reference of the MCP benchmark (tests/bench/mcp_bench.cpp): a minimal
// stdio MCP server written with @modelcontextprotocol/sdk on Node.js, the
// stack most MCP servers run on.  One tool, `get`, answers with a short
// JSON text, so the figures are the stack's own cost.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'reference', version: '1.0.0' });
server.registerTool('get', {
  description: 'An item by id',
  inputSchema: { id: z.string() },
}, async ({ id }) => ({
  content: [{ type: 'text', text: JSON.stringify({ id, text: 'a short answer' }) }],
}));
await server.connect(new StdioServerTransport());
