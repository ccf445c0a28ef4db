package agent

import (
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/llm"
)

func TestResumeKeepsTurnsAndAccounting(t *testing.T) {
	saved := []contract.Message{
		{Role: contract.RoleSystem, Content: "old system"},
		{Role: contract.RoleUser, Content: "first question"},
		{Role: contract.RoleAssistant, Content: "first answer"},
	}
	carried := []contract.AccountingEntry{{Type: contract.AccountingLLM, Status: contract.AccountingOK, Provider: "old", TxnID: "t0"}}
	cases := []struct {
		name      string
		maxTurns  int
		turnsUsed int
		// calls are the LLM requests the new session makes.
		calls   int
		success bool
	}{
		{name: "room left", maxTurns: 5, turnsUsed: 1, calls: 1, success: true},
		{name: "last turn is final", maxTurns: 2, turnsUsed: 1, calls: 1, success: true},
		{name: "no turns left", maxTurns: 2, turnsUsed: 2, calls: 0, success: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := script(finalCall("second answer"))
			o := opts(t, f)
			o.MaxTurns = tc.maxTurns
			o.Tools = []tools.Provider{echoTools()}
			o.Resume = &Resume{Conversation: saved, Accounting: carried, TurnsUsed: tc.turnsUsed}
			x, err := New(o)
			if err != nil {
				t.Fatal(err)
			}
			res := x.Run(t.Context())
			if res.Success != tc.success || len(f.reqs) != tc.calls {
				t.Fatalf("success %v with %d calls; want %v with %d (%s)", res.Success, len(f.reqs), tc.success, tc.calls, res.Error)
			}
			if res.Conversation[0].Content == "old system" || res.Conversation[1].Content != "first question" ||
				res.Conversation[2].Content != "first answer" || res.Conversation[3].Content != "task" {
				t.Fatalf("conversation not continued: %+v", res.Conversation[:4])
			}
			if len(llmProviders(res.Accounting)) != 1+tc.calls || res.Accounting[0].Provider != "old" || res.Accounting[0].TxnID != "t0" {
				t.Fatalf("accounting not carried over: %+v", res.Accounting)
			}
			if tc.calls > 0 && !hasUser(f.reqs[0], "first question") {
				t.Fatalf("the request does not carry the saved conversation")
			}
			if !tc.success && !strings.Contains(res.Error, "after 2 turns") {
				t.Fatalf("error %q does not name the turn limit", res.Error)
			}
		})
	}
}

func hasUser(req llm.Request, text string) bool {
	for _, m := range req.Messages {
		if m.Role == contract.RoleUser && m.Content == text {
			return true
		}
	}
	return false
}

func TestResumeRefusesBadConversation(t *testing.T) {
	for _, conv := range [][]contract.Message{
		{{Role: contract.RoleUser, Content: "a"}, {Role: contract.RoleSystem, Content: "b"}},
		{{Role: "robot", Content: "a"}},
	} {
		o := opts(t, script(finalCall("x")))
		o.Resume = &Resume{Conversation: conv}
		if _, err := New(o); err == nil {
			t.Errorf("%+v accepted", conv)
		}
	}
}
