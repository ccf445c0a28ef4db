package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/anthropic"
	"github.com/salve-dev/salve/internal/llm/llmtest"
	"github.com/salve-dev/salve/internal/llm/openai"
)

func TestAnswerCalls(t *testing.T) {
	call := func(ids ...string) contract.Message {
		m := contract.Message{Role: contract.RoleAssistant, Content: "a"}
		for _, id := range ids {
			name := "t__echo"
			if strings.HasPrefix(id, "fr") {
				name = ToolFinalReport
			}
			m.ToolCalls = append(m.ToolCalls, contract.ToolCall{ID: id, Name: name, Parameters: json.RawMessage(`{}`)})
		}
		return m
	}
	result := func(id, text string) contract.Message {
		return contract.Message{Role: contract.RoleTool, ToolCallID: id, Content: text}
	}
	user := contract.Message{Role: contract.RoleUser, Content: "u"}
	notRun := toolFailed(resumedNotRun)
	cases := []struct {
		name string
		conv []contract.Message
		want []contract.Message
	}{
		{name: "well formed", conv: []contract.Message{user, call("c1"), result("c1", "r1"), call(), user},
			want: []contract.Message{user, call("c1"), result("c1", "r1"), call(), user}},
		{name: "native final report", conv: []contract.Message{user, call("c1"), result("c1", "r1"), call("fr1")},
			want: []contract.Message{user, call("c1"), result("c1", "r1"), call("fr1"), result("fr1", resumedFinalReport)}},
		{name: "final report beside a call that never ran", conv: []contract.Message{user, call("c2", "fr1")},
			want: []contract.Message{user, call("c2", "fr1"), result("c2", notRun), result("fr1", resumedFinalReport)}},
		{name: "partly answered, in another order", conv: []contract.Message{call("c1", "c2", "c3"), result("c3", "r3"), result("c1", "r1"), user},
			want: []contract.Message{call("c1", "c2", "c3"), result("c3", "r3"), result("c1", "r1"), result("c2", notRun), user}},
		{name: "orphan and duplicate results dropped", conv: []contract.Message{result("x", "stray"), user, call("c1"), result("c1", "r1"), result("c1", "again"), result("zz", "no call"), user, result("c1", "late")},
			want: []contract.Message{user, call("c1"), result("c1", "r1"), user}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := json.Marshal(tc.conv)
			got := answerCalls(tc.conv)
			if a, _ := json.Marshal(got); string(a) != string(mustJSON(t, tc.want)) {
				t.Fatalf("got  %s\nwant %s", a, mustJSON(t, tc.want))
			}
			if after, _ := json.Marshal(tc.conv); string(after) != string(before) {
				t.Fatal("the saved conversation was changed")
			}
		})
	}
	t.Run("call without an id", func(t *testing.T) {
		got := answerCalls([]contract.Message{user, call("")})
		if len(got) != 3 || got[1].ToolCalls[0].ID == "" || got[2].ToolCallID != got[1].ToolCalls[0].ID {
			t.Fatalf("got %+v", got)
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestResumeShapesProvidersAccept runs a native session over each wire the
// providers document (OpenAI chat completions, OpenAI Responses, Anthropic
// messages) against the local server, which refuses with HTTP 400 any
// request where a tool call is not answered by its result
// (llmtest.CheckShape). The session ends with the final report call, as a
// native session does; resuming it must send only accepted requests. The
// saved conversation sent as it is must be refused, so the check can fail.
func TestResumeShapesProvidersAccept(t *testing.T) {
	finalArgs := `{"report_format":"markdown","report_content":"first report"}`
	cases := []struct {
		name   string
		client func(base string) llm.Provider
	}{
		{"openai chat", func(base string) llm.Provider { return openai.New(openai.Options{BaseURL: base, APIKey: "k"}) }},
		{"openai responses", func(base string) llm.Provider {
			return openai.New(openai.Options{BaseURL: base, APIKey: "k", Mode: openai.ModeResponses})
		}},
		{"anthropic", func(base string) llm.Provider { return anthropic.New(anthropic.Options{BaseURL: base, APIKey: "k"}) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer()
			defer srv.Close()
			client := tc.client(srv.URL + "/v1")
			srv.Push(
				llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "t__echo", Arguments: `{"text":"hi"}`}}},
				llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c2", Name: "t__echo", Arguments: `{"text":"never"}`}, {ID: "fr1", Name: ToolFinalReport, Arguments: finalArgs}}},
			)
			o := opts(t, client)
			o.Tools = []tools.Provider{echoTools()}
			first := run(t, o)
			if !first.Success || len(srv.Rejected()) != 0 {
				t.Fatalf("first session: %v %s; refused: %q", first.Success, first.Error, srv.Rejected())
			}
			saved := first.Conversation
			if last := saved[len(saved)-1]; last.Role != contract.RoleAssistant || len(last.ToolCalls) != 2 {
				t.Fatalf("the saved session does not end with the final report call: %+v", last)
			}

			// As saved, the conversation is refused.
			_, err := client.Complete(context.Background(), llm.Request{Model: "m", MaxOutputTokens: 100,
				Messages: append(toLLM(saved), llm.Message{Role: contract.RoleUser, Content: "again"})})
			if err == nil || len(srv.Rejected()) != 1 {
				t.Fatalf("the raw saved conversation was not refused: %v, %q", err, srv.Rejected())
			}

			srv.Push(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "fr2", Name: ToolFinalReport, Arguments: `{"report_format":"markdown","report_content":"second"}`}}})
			o = opts(t, client)
			o.Tools = []tools.Provider{echoTools()}
			o.UserPrompt = "follow-up"
			o.MaxTurns = 5
			o.Resume = &Resume{Conversation: saved, TurnsUsed: TurnsIn(saved)}
			res := run(t, o)
			if !res.Success || res.FinalReport.Content == nil || *res.FinalReport.Content != "second" {
				t.Fatalf("resumed session: %v %s; refused: %q", res.Success, res.Error, srv.Rejected())
			}
			if got := srv.Rejected(); len(got) != 1 {
				t.Fatalf("the resumed session sent refused requests: %q", got[1:])
			}
			var answers []string
			for _, m := range res.Conversation {
				if m.Role == contract.RoleTool {
					answers = append(answers, m.ToolCallID+"="+m.Content)
				}
			}
			want := []string{"c1=hi", "c2=" + toolFailed(resumedNotRun), "fr1=" + resumedFinalReport}
			if !slices.Equal(answers, want) {
				t.Fatalf("tool results of the resumed conversation %q, want %q", answers, want)
			}
		})
	}
}
