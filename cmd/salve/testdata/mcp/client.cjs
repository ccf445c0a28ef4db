// Drives `salve mcp` with the official MCP TypeScript SDK client and prints
// what it saw as one JSON object on stdout.
//   node client.cjs stdio SALVE_BINARY REPO LOG_FILE
//   node client.cjs http URL REPO LOG_FILE
'use strict';

const fs = require('fs');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');

const [mode, target, repo, logFile] = process.argv.slice(2);

function text(r) {
  return (r.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('');
}

async function main() {
  let transport;
  if (mode === 'stdio') {
    const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
    transport = new StdioClientTransport({
      command: target,
      args: ['mcp', '--isolation', 'none'],
      env: process.env,
      stderr: 'inherit',
    });
  } else {
    const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
    transport = new StreamableHTTPClientTransport(new URL(target));
  }
  const client = new Client({ name: 'salve-mcp-test', version: '1.0.0' });
  await client.connect(transport);
  const out = { server: client.getServerVersion() };
  const tools = await client.listTools();
  out.tools = tools.tools.map((t) => ({
    name: t.name,
    required: t.inputSchema.required || [],
    hasOutputSchema: !!t.outputSchema,
  }));

  const parse = await client.callTool({ name: 'parse', arguments: { log: fs.readFileSync(logFile, 'utf8'), workspace: repo } });
  out.parse = { isError: !!parse.isError, text: text(parse), structured: parse.structuredContent };

  const badParse = await client.callTool({ name: 'parse', arguments: { log: 17 } });
  out.badParse = { isError: !!badParse.isError, text: text(badParse) };
  const badHeal = await client.callTool({ name: 'heal', arguments: { workspace: repo + '/does-not-exist' } });
  out.badHeal = { isError: !!badHeal.isError, text: text(badHeal) };

  const progress = [];
  const heal = await client.callTool(
    { name: 'heal', arguments: { workspace: repo, cmd: 'sh check.sh', fixers: ['rules'], isolation: 'none', max_iterations: 3 } },
    undefined,
    { onprogress: (p) => progress.push(p.message), timeout: 300000 },
  );
  out.heal = { isError: !!heal.isError, text: text(heal), structured: heal.structuredContent };
  out.progress = progress;

  const shown = await client.callTool({ name: 'runs_show', arguments: { run: heal.structuredContent ? heal.structuredContent.run_id : 'latest' } });
  out.runsShow = { isError: !!shown.isError, structured: shown.structuredContent };
  const unknown = await client.callTool({ name: 'runs_show', arguments: { run: 'no-such-run' } });
  out.unknownRun = { isError: !!unknown.isError, text: text(unknown) };
  await client.close();
  return out;
}

main().then(
  (out) => {
    process.stdout.write(JSON.stringify(out));
  },
  (err) => {
    console.error(err && err.stack ? err.stack : String(err));
    process.exit(1);
  },
);
