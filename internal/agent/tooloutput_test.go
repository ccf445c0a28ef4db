package agent

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/agent/tooloutput"
	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/llm"
)

var handleRE = regexp.MustCompile(`handle = "([0-9a-f-]{36})"`)

// bigListing is a 200-line tool output, far over a 1 KiB limit.
func bigListing() string {
	var b strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&b, "row %03d value=%d\n", i, i*7)
	}
	b.WriteString("SECRET-MARKER found at the end")
	return b.String()
}

// TestToolOutputExtractedByHandle: an output over toolResponseMaxBytes is
// stored; a later turn extracts from it by handle, in each mode.
func TestToolOutputExtractedByHandle(t *testing.T) {
	cases := []struct {
		name, mode, extract string
		// extraction is the model's answer to a full-chunked map call.
		extraction string
		want       []string
		not        []string
	}{
		{name: "lines", mode: "lines", extract: "10-12", want: []string{"STRATEGY:lines:", "10: row 010 value=70\n", "12: row 012 value=84\n"}, not: []string{"row 013"}},
		{name: "grep", mode: "grep", extract: "secret-marker|row 150", want: []string{"STRATEGY:grep:", "150: row 150 value=1050", "201: SECRET-MARKER"}, not: []string{"row 149"}},
		{name: "read-grep keywords", mode: "read-grep", extract: "where is the secret-marker?", want: []string{"201: SECRET-MARKER"}},
		{name: "grep nothing", mode: "grep", extract: "nothing-like-this", want: []string{tooloutput.NoData}},
		{name: "truncate", mode: "truncate", extract: "anything", want: []string{"STRATEGY:truncate:", "row 001"}, not: []string{"SECRET-MARKER"}},
		{name: "full-chunked", mode: "full-chunked", extract: "the marker", extraction: "the marker is on the last line", want: []string{"STRATEGY:full-chunked:", "the marker is on the last line"}},
		{name: "auto is full-chunked when it fits", mode: "", extract: "the marker", extraction: "found it", want: []string{"STRATEGY:full-chunked:", "found it"}},
		{name: "bad range", mode: "lines", extract: "x-y", want: []string{"TOOL_OUTPUT FAILED FOR t__echo"}},
	}
	big := bigListing()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var extracted string
			f := &fakeLLM{complete: func(n int, req llm.Request) (llm.Response, error) {
				switch {
				case n == 1:
					args, _ := json.Marshal(map[string]string{"text": big})
					return toolCall("c1", "t__echo", string(args)), nil
				case len(req.Tools) == 0 && len(req.Messages) == 2:
					// A tool-less map call of full-chunked.
					if !strings.Contains(req.Messages[1].Content, "SECRET-MARKER") {
						return llm.Response{}, fmt.Errorf("map call without the stored output")
					}
					return text(tc.extraction, "stop"), nil
				case extracted == "":
					m := handleRE.FindStringSubmatch(req.Messages[len(req.Messages)-1].Content)
					if m == nil || !offers(req, ToolOutput) {
						return llm.Response{}, fmt.Errorf("no handle or no tool_output offered")
					}
					in := map[string]string{"handle": m[1], "extract": tc.extract}
					if tc.mode != "" {
						in["mode"] = tc.mode
					}
					args, _ := json.Marshal(in)
					extracted = "asked"
					return toolCall("c2", ToolOutput, string(args)), nil
				default:
					return finalCall(req.Messages[len(req.Messages)-1].Content), nil
				}
			}}
			o := opts(t, f)
			o.ToolResponseMaxBytes = 1024
			o.ToolOutput = tooloutput.Config{Enabled: true}
			o.Tools = []tools.Provider{echoTools()}
			res := run(t, o)
			if !res.Success {
				t.Fatalf("session failed: %s", res.Error)
			}
			stored := res.Conversation[3].Content
			if !strings.HasPrefix(stored, fmt.Sprintf("Tool output is too large (%d bytes, 201 lines", len(big))) {
				t.Fatalf("no handle message: %q", stored)
			}
			got := *res.FinalReport.Content
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("extraction lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(got, w) {
					t.Errorf("extraction has %q:\n%s", w, got)
				}
			}
			if len(got) > o.ToolResponseMaxBytes {
				t.Errorf("extraction is %d bytes, over the limit", len(got))
			}
		})
	}
}

func offers(req llm.Request, name string) bool {
	for _, td := range req.Tools {
		if td.Name == name {
			return true
		}
	}
	return false
}

// TestToolOutputOffStillTruncates: without the store the contract's
// notice applies and tool_output is never offered.
func TestToolOutputOffStillTruncates(t *testing.T) {
	big := bigListing()
	args, _ := json.Marshal(map[string]string{"text": big})
	f := script(toolCall("c1", "t__echo", string(args)), finalCall("done"))
	o := opts(t, f)
	o.ToolResponseMaxBytes = 1024
	o.Tools = []tools.Provider{echoTools()}
	res := run(t, o)
	if got := res.Conversation[3].Content; !strings.HasPrefix(got, "[TRUNCATED] Original size") {
		t.Fatalf("not truncated: %q", got[:60])
	}
	for _, r := range f.reqs {
		if offers(r, ToolOutput) {
			t.Fatalf("tool_output offered with the store off")
		}
	}
}

// TestToolOutputUnknownHandle: an unknown handle answers, not fails.
func TestToolOutputUnknownHandle(t *testing.T) {
	f := script(finalCall("x"))
	o := opts(t, f)
	o.ToolOutput = tooloutput.Config{Enabled: true}
	x, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	got, err := x.s.extractOutput(t.Context(), json.RawMessage(`{"handle":"nope","extract":"x"}`))
	if err != nil || !strings.HasPrefix(got, "No stored tool output found for handle nope.") {
		t.Fatalf("got %q, %v", got, err)
	}
	got, _ = x.s.extractOutput(t.Context(), json.RawMessage(`{"handle":"","extract":"x"}`))
	if !strings.Contains(got, "handle and extract are required") {
		t.Fatalf("got %q", got)
	}
}
