package agent

import (
	"errors"
	"fmt"
	"testing"

	"github.com/salve-dev/salve/contract"
)

// TestHistory: earlier messages of a conversation go between the system
// prompt and the user prompt, in the requests and in the result.
func TestHistory(t *testing.T) {
	f := script(finalCall("done"))
	o := opts(t, f)
	o.History = []contract.Message{{Role: contract.RoleUser, Content: "q1"}, {Role: contract.RoleAssistant, Content: "a1"}}
	res := run(t, o)
	if !res.Success {
		t.Fatalf("result %+v", res)
	}
	var sent []string
	for _, m := range f.reqs[0].Messages {
		sent = append(sent, m.Role+":"+m.Content)
	}
	want := "[system:" + f.reqs[0].Messages[0].Content + " user:q1 assistant:a1 user:task]"
	if fmt.Sprint(sent) != want {
		t.Fatalf("sent %v, want %s", sent, want)
	}
	if len(res.Conversation) < 4 || res.Conversation[1].Content != "q1" || res.Conversation[2].Content != "a1" || res.Conversation[3].Content != "task" {
		t.Fatalf("conversation %+v", res.Conversation)
	}
}

func TestHistoryRoles(t *testing.T) {
	for _, role := range []string{contract.RoleSystem, contract.RoleTool, "wizard"} {
		o := opts(t, script(finalCall("x")))
		o.History = []contract.Message{{Role: role, Content: "x"}}
		if _, err := New(o); !errors.Is(err, ErrInvalid) {
			t.Errorf("role %q: err = %v, want ErrInvalid", role, err)
		}
	}
}
