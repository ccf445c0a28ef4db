// Drives a running ai-agent headend with the official client SDKs and
// prints what they saw as one JSON object. Usage:
//   node clients.cjs openai|anthropic|mcp-http|mcp-ws BASE_URL
//   node clients.cjs mcp-stdio AI_AGENT_BINARY ARGS_JSON
// TOKEN in the environment is the headend's bearer token.
'use strict';

const mode = process.argv[2];
const token = process.env.TOKEN || 'none';
const history = [
  { role: 'user', content: 'first question' },
  { role: 'assistant', content: 'first answer' },
];

async function openai(base) {
  const { OpenAI } = require('openai');
  const c = new OpenAI({ baseURL: base + '/v1', apiKey: token, maxRetries: 0 });
  const out = {};
  const models = await c.models.list();
  out.models = models.data.map((m) => m.id);
  const r = await c.chat.completions.create({
    model: 'chat',
    messages: [...history, { role: 'user', content: 'plain question' }],
  });
  out.plain = r.choices[0].message.content;
  out.finish = r.choices[0].finish_reason;
  out.usage = r.usage;
  const s = await c.chat.completions.create({
    model: 'chat',
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: 'streamed question' }],
  });
  out.streamed = '';
  out.chunks = 0;
  for await (const ch of s) {
    out.chunks++;
    const d = ch.choices[0] && ch.choices[0].delta;
    if (d && d.content) out.streamed += d.content;
    if (ch.usage) out.streamUsage = ch.usage;
  }
  try {
    await c.chat.completions.create({ model: 'no-such-agent', messages: [{ role: 'user', content: 'x' }] });
    out.notFound = 'no error';
  } catch (e) {
    out.notFound = { status: e.status, code: e.code, type: e.type };
  }
  const bad = new OpenAI({ baseURL: base + '/v1', apiKey: 'wrong-token', maxRetries: 0 });
  try {
    await bad.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'x' }] });
    out.unauthorized = 'no error';
  } catch (e) {
    out.unauthorized = { status: e.status };
  }
  return out;
}

async function anthropic(base) {
  const { Anthropic } = require('@anthropic-ai/sdk');
  const c = new Anthropic({ baseURL: base, apiKey: token, maxRetries: 0 });
  const out = {};
  const m = await c.messages.create({
    model: 'chat',
    max_tokens: 256,
    messages: [...history, { role: 'user', content: 'plain question' }],
  });
  out.plain = m.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
  out.stopReason = m.stop_reason;
  out.usage = m.usage;
  const stream = c.messages.stream({
    model: 'chat',
    max_tokens: 256,
    messages: [{ role: 'user', content: 'streamed question' }],
  });
  out.streamedText = '';
  stream.on('text', (t) => { out.streamedText += t; });
  const fin = await stream.finalMessage();
  out.streamed = fin.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
  out.streamStop = fin.stop_reason;
  try {
    await c.messages.create({ model: 'no-such-agent', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] });
    out.notFound = 'no error';
  } catch (e) {
    out.notFound = { status: e.status, type: e.error && e.error.error && e.error.error.type };
  }
  return out;
}

async function mcp(transport) {
  const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
  const client = new Client({ name: 'salve-headend-test', version: '1.0.0' });
  await client.connect(transport);
  const out = {};
  out.instructions = client.getInstructions();
  const tools = await client.listTools();
  out.tools = tools.tools.map((t) => ({ name: t.name, required: t.inputSchema.required }));
  const r = await client.callTool({ name: 'chat', arguments: { prompt: 'mcp question', format: 'markdown' } });
  out.text = r.content.map((c) => c.text).join('');
  out.isError = !!r.isError;
  const j = await client.callTool({ name: 'extract', arguments: { prompt: 'mcp json', format: 'json' } });
  out.jsonText = j.content.map((c) => c.text).join('');
  out.structured = j.structuredContent;
  const bad = await client.callTool({ name: 'chat', arguments: { prompt: 'x' } }).catch((e) => ({ thrown: String(e) }));
  out.missingFormat = bad;
  await client.close();
  return out;
}

async function main() {
  let out;
  switch (mode) {
    case 'openai':
      out = await openai(process.argv[3]);
      break;
    case 'anthropic':
      out = await anthropic(process.argv[3]);
      break;
    case 'mcp-http': {
      const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
      out = await mcp(new StreamableHTTPClientTransport(new URL(process.argv[3] + '/mcp'), {
        requestInit: { headers: { Authorization: 'Bearer ' + token } },
      }));
      break;
    }
    case 'mcp-ws': {
      // The SDK's client transport uses the global WebSocket (node 22, or
      // node 20 with --experimental-websocket); it sends no headers.
      if (typeof WebSocket === 'undefined') throw new Error('this node has no global WebSocket');
      const { WebSocketClientTransport } = require('@modelcontextprotocol/sdk/client/websocket.js');
      out = await mcp(new WebSocketClientTransport(new URL(process.argv[3])));
      break;
    }
    case 'mcp-stdio': {
      const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
      out = await mcp(new StdioClientTransport({
        command: process.argv[3],
        args: JSON.parse(process.argv[4]),
        cwd: process.cwd(),
        env: process.env,
        stderr: 'inherit',
      }));
      break;
    }
    default:
      throw new Error('unknown mode ' + mode);
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((e) => {
  process.stderr.write('client error: ' + (e && e.stack ? e.stack : String(e)) + '\n');
  process.exit(1);
});
