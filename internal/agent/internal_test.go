package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/llm"
)

func TestBatchRefusesInternalAndUnknown(t *testing.T) {
	args := `{"calls":[{"id":"a","tool":"agent__final_report","parameters":{}},{"id":"b","tool":"nope__x","parameters":{}},
		{"id":"c","tool":"t__echo","parameters":{"text":"fine"}},{"id":7,"tool":"t__echo","parameters":{"bad":1}}]}`
	f := script(toolCall("batch", ToolBatch, args), finalCall("done"))
	o := opts(t, f)
	o.Batch = true
	o.Tools = []tools.Provider{echoTools()}
	res := run(t, o)
	var out struct {
		Results []struct {
			ID    json.RawMessage `json:"id"`
			OK    bool            `json:"ok"`
			Out   string          `json:"output"`
			Error *struct{ Code string }
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(res.Conversation[3].Content), &out); err != nil {
		t.Fatalf("batch output: %v: %s", err, res.Conversation[3].Content)
	}
	want := []string{"INTERNAL_NOT_ALLOWED", "UNKNOWN_TOOL", "", "EXECUTION_ERROR"}
	for i, r := range out.Results {
		code := ""
		if r.Error != nil {
			code = r.Error.Code
		}
		if code != want[i] || (code == "") != r.OK {
			t.Fatalf("result %d = %+v, want code %q", i, r, want[i])
		}
	}
	if out.Results[2].Out != "fine" || string(out.Results[3].ID) != "7" {
		t.Fatalf("results = %+v", out.Results)
	}
}

func TestBatchCountsTowardToolLimit(t *testing.T) {
	args := `{"calls":[{"id":1,"tool":"t__echo","parameters":{"text":"a"}},{"id":2,"tool":"t__echo","parameters":{"text":"b"}}]}`
	f := script(llm.Response{ToolCalls: []llm.ToolCall{
		{ID: "x", Name: "t__echo", Arguments: `{"text":"first"}`},
		{ID: "y", Name: ToolBatch, Arguments: args},
	}}, finalCall("done"))
	o := opts(t, f)
	o.Batch = true
	o.MaxToolCallsPerTurn = 2
	o.Tools = []tools.Provider{echoTools()}
	res := run(t, o)
	if got := res.Conversation[4].Content; got != "(tool failed: tool call limit exceeded (maxToolCallsPerTurn=2))" {
		t.Fatalf("batch beyond the limit = %q", got)
	}
}

func TestProgressReportNativeAndXML(t *testing.T) {
	var sb strings.Builder
	f := script(toolCall("p", ToolProgress, `{"progress":"halfway"}`), finalCall("done"))
	o := opts(t, f)
	o.Progress = true
	o.ProgressOut = &sb
	o.Tools = []tools.Provider{echoTools()}
	res := run(t, o)
	if res.Conversation[3].Content != `{"ok":true}` || !strings.Contains(sb.String(), "halfway") {
		t.Fatalf("progress = %q, stderr %q", res.Conversation[3].Content, sb.String())
	}
	var e []contract.AccountingEntry
	for _, a := range res.Accounting {
		if a.Command == ToolProgress {
			e = append(e, a)
		}
	}
	if len(e) != 1 || e[0].MCPServer != "agent" {
		t.Fatalf("progress entries = %+v", e)
	}

	sb.Reset()
	tag := `<ai-agent-abcdef01-PROGRESS tool="agent__progress_report">via xml</ai-agent-abcdef01-PROGRESS>`
	f = script(text(tag, "stop"), text(finalTag("markdown", "# x", true), "stop"))
	o = opts(t, f)
	o.Transport = TransportXML
	o.Progress = true
	o.ProgressOut = &sb
	o.Tools = []tools.Provider{echoTools()}
	res = run(t, o)
	if !strings.Contains(sb.String(), "via xml") || res.Conversation[3].NoticeType != contract.NoticeXMLPast {
		t.Fatalf("xml progress: %q / %+v", sb.String(), res.Conversation[3])
	}
	if !strings.Contains(f.reqs[0].Messages[len(f.reqs[0].Messages)-1].Content, "-PROGRESS tool=\"agent__progress_report\"") {
		t.Fatalf("XML-NEXT does not advertise PROGRESS")
	}
}
