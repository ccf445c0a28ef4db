// Package enginetest runs the tool side of the agent runtime through the
// real session engine (package agent): MCP servers over stdio (the mcptest
// server), the queues, the context guard and the token estimator, against
// the llmtest server speaking the OpenAI wire format on loopback. It holds
// tests only: the conformance checks of docs/contracts/ai-agent.md for the
// pieces of part 2, and the 200-session load test.
package enginetest
