package agent

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/llm"
)

// TestRouter: router__handoff-to is offered with the destinations as its
// enum, on the final turn too; a valid call ends the session after its
// turn, successful, without a report, with the route; an invalid one
// fails like any bad call and the session goes on.
func TestRouter(t *testing.T) {
	route := func(args string) llm.Response { return toolCall("r", ToolRouterHandoff, args) }
	cases := []struct {
		name      string
		maxTurns  int
		responses []any
		// want is the route; nil means none.
		want     *Route
		requests int
		success  bool
	}{
		{name: "routes with a note", responses: []any{route(`{"agent":"billing","message":"  angry customer "}`)},
			want: &Route{Agent: "billing", Message: "angry customer"}, requests: 1, success: true},
		{name: "routes without a note after a tool", responses: []any{toolCall("e", "t__echo", `{"text":"x"}`), route(`{"agent":"tech"}`)},
			want: &Route{Agent: "tech"}, requests: 2, success: true},
		{name: "routes on the final turn", maxTurns: 1, responses: []any{route(`{"agent":"tech"}`)},
			want: &Route{Agent: "tech"}, requests: 1, success: true},
		{name: "an unknown destination is a failed call", responses: []any{route(`{"agent":"sales"}`), finalCall("answered myself")},
			requests: 2, success: true},
		{name: "answering is still allowed", responses: []any{finalCall("no routing needed")}, requests: 1, success: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := script(tc.responses...)
			o := opts(t, f)
			o.MaxTurns = tc.maxTurns
			o.Routes = []string{"billing", "tech"}
			o.Tools = []tools.Provider{echoTools()}
			x, err := New(o)
			if err != nil {
				t.Fatal(err)
			}
			res := x.Run(context.Background())
			if res.Success != tc.success || len(f.reqs) != tc.requests {
				t.Fatalf("success %v after %d requests, want %v after %d; error %q", res.Success, len(f.reqs), tc.success, tc.requests, res.Error)
			}
			got, ok := x.Route()
			switch {
			case tc.want == nil && ok:
				t.Fatalf("routed to %+v", got)
			case tc.want != nil && (!ok || got != *tc.want):
				t.Fatalf("route %+v (%v), want %+v", got, ok, *tc.want)
			case tc.want != nil && res.FinalReport != nil:
				t.Fatalf("a routed session has a final report: %+v", res.FinalReport)
			case tc.want == nil && res.FinalReport == nil:
				t.Fatal("no final report and no route")
			}
			for i, req := range f.reqs {
				if !offersTool(req, ToolRouterHandoff) {
					t.Errorf("request %d does not offer %s", i+1, ToolRouterHandoff)
				}
				if !strings.Contains(req.Messages[0].Content, "Use router__handoff-to to route the original request to one of: billing, tech.") {
					t.Errorf("request %d: the system prompt does not name the destinations", i+1)
				}
			}
			if tc.name == "an unknown destination is a failed call" && !strings.Contains(toolMessage(res.Conversation, "r"), "(tool failed: invalid arguments") {
				t.Errorf("the bad call's result is %q", toolMessage(res.Conversation, "r"))
			}
		})
	}
}

// TestRouterEnum: the tool's schema names exactly the destinations.
func TestRouterEnum(t *testing.T) {
	f := script(finalCall("x"))
	o := opts(t, f)
	o.Routes = []string{"a", "b"}
	run(t, o)
	for _, d := range f.reqs[0].Tools {
		if d.Name == ToolRouterHandoff {
			if !strings.Contains(string(d.InputSchema), `"enum":["a","b"]`) {
				t.Fatalf("schema %s", d.InputSchema)
			}
			return
		}
	}
	t.Fatal("router tool not offered")
}

// TestSetUserPrompt: the prompt set before Run is the one sent.
func TestSetUserPrompt(t *testing.T) {
	f := script(finalCall("x"))
	x, err := New(opts(t, f))
	if err != nil {
		t.Fatal(err)
	}
	x.SetUserPrompt("<advisory__1>hint</advisory__1>\ntask")
	x.Run(context.Background())
	if got := f.reqs[0].Messages[1].Content; got != x.UserPrompt() || !strings.HasPrefix(got, "<advisory__1>") {
		t.Fatalf("sent %q", got)
	}
}

func offersTool(req llm.Request, name string) bool {
	return slices.ContainsFunc(req.Tools, func(d llm.ToolDef) bool { return d.Name == name })
}

func toolMessage(conv []contract.Message, id string) string {
	for _, m := range conv {
		if m.Role == contract.RoleTool && m.ToolCallID == id {
			return m.Content
		}
	}
	return ""
}
