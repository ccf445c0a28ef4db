package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/llm"
)

// extractingModel calls rest__big, then tool_output on the handle it got,
// then reports the extraction.
type extractingModel struct{ handles []string }

var handleMsg = regexp.MustCompile(`tool_output\(handle = "([0-9a-f-]{36})"`)

func (m *extractingModel) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	last := req.Messages[len(req.Messages)-1]
	switch {
	case last.Role != contract.RoleTool:
		return llm.Response{ToolCalls: []llm.ToolCall{{ID: "a", Name: "rest__big", Arguments: `{}`}}, StopReason: "tool_calls"}, nil
	case handleMsg.MatchString(last.Content):
		h := handleMsg.FindStringSubmatch(last.Content)[1]
		m.handles = append(m.handles, h)
		args := fmt.Sprintf(`{"handle":%q,"extract":"needle","mode":"grep"}`, h)
		return llm.Response{ToolCalls: []llm.ToolCall{{ID: "b", Name: "tool_output", Arguments: args}}, StopReason: "tool_calls"}, nil
	}
	args := fmt.Sprintf(`{"report_format":"pipe","report_content":%q}`, last.Content)
	return llm.Response{ToolCalls: []llm.ToolCall{{ID: "f", Name: "agent__final_report", Arguments: args}}, StopReason: "tool_calls"}, nil
}

// TestToolOutputFromConfig: with toolOutput enabled in the config file, a
// REST output over toolResponseMaxBytes is extracted by handle in a later
// turn; with it off (the default) the output is truncated.
func TestToolOutputFromConfig(t *testing.T) {
	big := strings.Repeat("hay hay hay\n", 3000) + "the needle is here\n" + strings.Repeat("hay\n", 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(big)) }))
	defer srv.Close()
	rest := `"restTools":{"big":{"description":"big","url":"` + srv.URL + `","parametersSchema":{"type":"object"}}}`
	cases := []struct {
		name, toolOutput string
		want             string
	}{
		{name: "store on", toolOutput: `,"toolOutput":{"enabled":true}`, want: "3001: the needle is here"},
		{name: "store off", toolOutput: ``, want: "[TRUNCATED] Original size"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			newEnv(t, `{"providers":{"p":{"type":"openai-compatible"}},`+rest+tc.toolOutput+`}`)
			model := &extractingModel{}
			d := deps{providers: map[string]providerFactory{"openai-compatible": func(providerSpec) (llm.Provider, error) { return model, nil }}}
			var out, errOut bytes.Buffer
			code := runWith(context.Background(), d, []string{"--models", "p/m", "--tools", "big", "--tooling-transport", "native",
				"--format", "pipe", "sys", "find the needle"}, strings.NewReader(""), &out, &errOut)
			if code != exitOK || !strings.Contains(out.String(), tc.want) {
				t.Fatalf("exit %d, output %.200q: %s", code, out.String(), errOut.String())
			}
			if (tc.toolOutput != "") != (len(model.handles) == 1) {
				t.Fatalf("handles %v", model.handles)
			}
		})
	}
}
