package agent

import (
	"slices"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/llm"
)

const nonce = "abcdef01"

func finalTag(format, payload string, closed bool) string {
	s := `<ai-agent-` + nonce + `-FINAL tool="agent__final_report" format="` + format + `">` + payload
	if closed {
		s += `</ai-agent-` + nonce + `-FINAL>`
	}
	return s
}

func TestFindTags(t *testing.T) {
	txt := `pre <ai-agent-abcdef01-0001 tool="t__echo">{"text":"a"}</ai-agent-abcdef01-0001> mid
<ai-agent-00000000-0002 tool="t__echo">{}</ai-agent-00000000-0002>
<ai-agent-abcdef01-FINAL tool="agent__final_report" format="markdown">  # Done  </ai-agent-abcdef01-FINAL>
<ai-agent-abcdef01-PROGRESS tool="agent__progress_report">half`
	tags := findTags(txt, nonce)
	if len(tags) != 3 {
		t.Fatalf("found %d tags: %+v", len(tags), tags)
	}
	if tags[0].Slot != "0001" || tags[0].Attrs["tool"] != "t__echo" || tags[0].Payload != `{"text":"a"}` || !tags[0].Closed {
		t.Fatalf("tag 0 = %+v", tags[0])
	}
	if tags[1].Payload != "# Done" || tags[1].Attrs["format"] != "markdown" {
		t.Fatalf("tag 1 = %+v", tags[1])
	}
	if tags[2].Closed || tags[2].Payload != "half" {
		t.Fatalf("tag 2 = %+v", tags[2])
	}
}

func FuzzFindTags(f *testing.F) {
	f.Add(finalTag("markdown", "x", true))
	f.Add(`<ai-agent-abcdef01-0001 tool="a" x=">y</ai-agent-abcdef01-0001`)
	f.Fuzz(func(t *testing.T, s string) {
		for _, tag := range findTags(s, nonce) {
			if tag.Slot == "" {
				t.Fatalf("empty slot")
			}
		}
	})
}

func TestSlotsForTurn(t *testing.T) {
	if got := slotsForTurn(2, 3); !slices.Equal(got, []string{"0004", "0005", "0006"}) {
		t.Fatalf("slots = %v", got)
	}
}

func TestUnclosedFinalByStopReason(t *testing.T) {
	cases := []struct {
		stop   string
		accept bool
	}{{"stop", true}, {"end_turn", true}, {"eos", true}, {"", true}, {"weird", true}, {"length", false}, {"max_tokens", false}}
	for _, tc := range cases {
		t.Run(tc.stop, func(t *testing.T) {
			f := script(text(finalTag("markdown", "# Report", false), tc.stop), text(finalTag("markdown", "# Again", true), "stop"))
			o := opts(t, f)
			o.Transport = TransportXMLFinal
			res := run(t, o)
			want := "# Again"
			if tc.accept {
				want = "# Report"
			}
			if !res.Success || *res.FinalReport.Content != want {
				t.Fatalf("content = %v", res.FinalReport)
			}
		})
	}
}

func TestXMLFinalTransport(t *testing.T) {
	f := script(toolCall("c1", "t__echo", `{"text":"hi"}`), text("thinking... "+finalTag("json", `{"a":1}`, true), "stop"))
	o := opts(t, f)
	o.Transport = TransportXMLFinal
	o.Format = FormatJSON
	o.Tools = []tools.Provider{echoTools()}
	res := run(t, o)
	if !res.Success || string(res.FinalReport.ContentJSON) != `{"a":1}` {
		t.Fatalf("result = %+v %s", res.FinalReport, res.Error)
	}
	r0 := f.reqs[0]
	for _, td := range r0.Tools {
		if td.Name == ToolFinalReport {
			t.Fatalf("xml-final offers the native final report tool")
		}
	}
	next := r0.Messages[len(r0.Messages)-1]
	if !next.Ephemeral || !strings.Contains(next.Content, "<ai-agent-"+nonce+"-FINAL") || r0.Session.Nonce != nonce {
		t.Fatalf("XML-NEXT missing: %+v", next)
	}
	if res.Conversation[0].Content != "sys" {
		t.Fatalf("system prompt altered in xml-final: %q", res.Conversation[0].Content)
	}
	var xmlEntry bool
	for _, e := range res.Accounting {
		if e.Command == ToolFinalReportXML && e.Source == "xml" && e.Status == contract.AccountingOK {
			xmlEntry = true
		}
	}
	if !xmlEntry {
		t.Fatalf("no agent__final_report_xml accounting entry")
	}
	for _, m := range res.Conversation {
		if strings.Contains(m.Content, "System notice: turn") {
			t.Fatalf("XML-NEXT stored in conversation")
		}
	}
}

func TestXMLTransportSlotsAndPast(t *testing.T) {
	turn1 := `<ai-agent-abcdef01-0001 tool="t__echo">{"text":"one"}</ai-agent-abcdef01-0001>` +
		`<ai-agent-abcdef01-0009 tool="t__echo">{"text":"bad slot"}</ai-agent-abcdef01-0009>` +
		`<ai-agent-ffffffff-0002 tool="t__echo">{"text":"foreign"}</ai-agent-ffffffff-0002>`
	f := script(text(turn1, "stop"), text(finalTag("markdown", "# fin", true), "stop"))
	o := opts(t, f)
	o.Transport = TransportXML
	o.MaxToolCallsPerTurn = 3
	o.Tools = []tools.Provider{echoTools()}
	res := run(t, o)
	if !res.Success {
		t.Fatalf("want success: %s", res.Error)
	}
	if len(f.reqs[0].Tools) != 0 {
		t.Fatalf("xml mode sent native tool definitions")
	}
	if !slices.Equal(f.reqs[1].Session.Slots, []string{nonce + "-0004", nonce + "-0005", nonce + "-0006"}) {
		t.Fatalf("turn 2 slots = %v", f.reqs[1].Session.Slots)
	}
	past := res.Conversation[3]
	if past.NoticeType != contract.NoticeXMLPast || !strings.Contains(past.Content, "tool response for "+nonce+"-0001 (t__echo)") ||
		!strings.Contains(past.Content, "<response>one</response>") || strings.Contains(past.Content, "bad slot") {
		t.Fatalf("xml-past = %+v", past)
	}
	var xmlTool int
	for _, e := range res.Accounting {
		if e.Command == "t__echo" && e.Source == "xml" {
			xmlTool++
		}
	}
	if xmlTool != 1 {
		t.Fatalf("xml tool entries = %d", xmlTool)
	}
}

func TestTextFallbackOnFinalTurn(t *testing.T) {
	f := script(text("the answer is 42", "stop"))
	o := opts(t, f)
	o.MaxTurns = 1
	o.Transport = TransportXMLFinal
	res := run(t, o)
	if !res.Success || *res.FinalReport.Content != "the answer is 42" {
		t.Fatalf("text fallback = %+v %s", res.FinalReport, res.Error)
	}
	f = script(text("ignored on turn 1", "stop"), text("accepted on turn 2", "stop"))
	o = opts(t, f)
	o.MaxTurns = 2
	o.MaxRetries = 1
	res = run(t, o)
	if !res.Success || *res.FinalReport.Content != "accepted on turn 2" || countRole(res.Conversation, contract.RoleAssistant) != 1 {
		t.Fatalf("text on a non-final turn was not ignored: %+v", res.Conversation)
	}
}

func TestStreamFilter(t *testing.T) {
	var got []string
	f := &streamFilter{nonce: nonce, emit: func(slot, p string) { got = append(got, slot+"="+p) }}
	full := "hello " + finalTag("markdown", "# Hi", true) + " bye"
	for i := 0; i < len(full); i += 3 {
		f.write(full[i:min(i+3, len(full))])
	}
	if !slices.Equal(got, []string{"FINAL=# Hi"}) {
		t.Fatalf("stream filter emitted %v", got)
	}
}

func TestStreamingDeltaSink(t *testing.T) {
	var sb strings.Builder
	f := &fakeLLM{complete: func(_ int, req llm.Request) (llm.Response, error) {
		full := "noise " + finalTag("markdown", "# Streamed", true)
		for i := 0; i < len(full); i += 5 {
			req.OnDelta(llm.Delta{Text: full[i:min(i+5, len(full))]})
		}
		return text(full, "stop"), nil
	}}
	o := opts(t, f)
	o.Transport = TransportXMLFinal
	o.Stream = true
	o.ProgressOut = &sb
	res := run(t, o)
	if !res.Success || strings.Contains(sb.String(), "noise") || !strings.Contains(sb.String(), "# Streamed") {
		t.Fatalf("stream output %q", sb.String())
	}
}

func FuzzStreamFilter(f *testing.F) {
	f.Add(finalTag("markdown", "# Hi", true), 3)
	f.Add("<ai-agent-abcdef01-0001 tool=\"x\">{}</ai-agent-abcdef01-0001>", 1)
	f.Fuzz(func(t *testing.T, s string, chunk int) {
		if chunk <= 0 || chunk > 64 {
			return
		}
		var streamed []string
		sf := &streamFilter{nonce: nonce, emit: func(slot, p string) { streamed = append(streamed, slot+"\x00"+p) }}
		for i := 0; i < len(s); i += chunk {
			sf.write(s[i:min(i+chunk, len(s))])
		}
		var whole []string
		wf := &streamFilter{nonce: nonce, emit: func(slot, p string) { whole = append(whole, slot+"\x00"+p) }}
		wf.write(s)
		if !slices.Equal(streamed, whole) {
			t.Fatalf("chunking changed the emitted tags: %q vs %q", streamed, whole)
		}
	})
}
