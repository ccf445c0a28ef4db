package agent

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/llm"
)

// fakeClock advances one millisecond per reading, so timestamps and
// latencies in golden files are stable.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time {
	c.t = c.t.Add(time.Millisecond)
	return c.t
}

// TestGoldenSessions pins the whole AIAgentResult of a three-turn session
// (a rate limit, an empty response, a repaired tool call with a truncated
// output, a dropped unknown tool, then the report) in each transport.
func TestGoldenSessions(t *testing.T) {
	for _, transport := range []string{TransportNative, TransportXMLFinal, TransportXML} {
		t.Run(transport, func(t *testing.T) {
			calls := 0
			f := &fakeLLM{complete: func(_ int, req llm.Request) (llm.Response, error) {
				calls++
				switch calls {
				case 1:
					return llm.Response{}, &llm.Error{Class: llm.ClassRateLimit, Status: 429, RetryAfter: time.Second, Message: "slow down"}
				case 2:
					return llm.Response{StopReason: "stop"}, nil
				case 3:
					if transport == TransportXML {
						return text(`<ai-agent-abcdef01-0001 tool="t__echo">{"text": "`+longText+`",}</ai-agent-abcdef01-0001>`, "stop"), nil
					}
					return llm.Response{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "t__echo", Arguments: `{"text": "` + longText + `",}`},
						{ID: "c2", Name: "t__missing", Arguments: `{}`}}, StopReason: "tool_calls"}, nil
				}
				if transport == TransportNative {
					return finalCall("# Report"), nil
				}
				return text(finalTag("markdown", "# Report", true), "stop"), nil
			}}
			o := opts(t, f)
			o.Transport = transport
			o.ToolResponseMaxBytes = 100
			o.Tools = []tools.Provider{echoTools()}
			o.Trace = Trace{AgentID: "main", CallPath: "main", TxnID: "txn-1", OriginTxnID: "txn-1"}
			clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
			o.Now = clock.now
			x, err := New(o)
			if err != nil {
				t.Fatal(err)
			}
			res := x.Run(context.Background())
			b, err := json.MarshalIndent(res, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "session-"+transport+".golden.json", string(b)+"\n")
		})
	}
}

const longText = "This output is longer than the hundred-byte limit of this session, so the engine must truncate it with the notice."
