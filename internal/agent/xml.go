package agent

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
)

// XML slot names (docs/contracts/ai-agent-cli.md §12).
const (
	SlotFinal    = "FINAL"
	SlotProgress = "PROGRESS"
)

// tagPrefix is the start of every transport tag.
const tagPrefix = "<ai-agent-"

// newNonce draws the session's 8-hex-digit nonce.
func newNonce() string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "00000000"
	}
	return hex.EncodeToString(b[:])
}

// slotsForTurn lists the numbered slots of turn t (from 1) with m slots per
// turn: (t−1)·m+1 … t·m, zero-padded to 4 digits
// (docs/contracts/ai-agent-cli.md §12).
func slotsForTurn(t, m int) []string {
	out := make([]string, 0, m)
	for s := (t-1)*m + 1; s <= t*m; s++ {
		out = append(out, fmt.Sprintf("%04d", s))
	}
	return out
}

// xmlTag is one transport tag found in assistant text.
type xmlTag struct {
	Slot    string
	Attrs   map[string]string
	Payload string
	// Closed is false when the opening tag had no matching closing tag;
	// Payload is then the rest of the text.
	Closed bool
}

// findTags returns every tag of this nonce in text, in order, found by
// substring search only (docs/contracts/ai-agent.md §11). Tags of other
// nonces are ignored.
func findTags(text, nonce string) []xmlTag {
	open := tagPrefix + nonce + "-"
	var tags []xmlTag
	rest := text
	for {
		i := strings.Index(rest, open)
		if i < 0 {
			return tags
		}
		rest = rest[i+len(open):]
		end := strings.IndexByte(rest, '>')
		if end < 0 {
			return tags
		}
		head := rest[:end]
		slot, attrText, _ := strings.Cut(head, " ")
		if slot == "" || strings.ContainsAny(slot, "<\n") {
			continue
		}
		tag := xmlTag{Slot: slot, Attrs: parseAttrs(attrText)}
		body := rest[end+1:]
		closeTag := "</ai-agent-" + nonce + "-" + slot + ">"
		if j := strings.Index(body, closeTag); j >= 0 {
			tag.Payload = strings.TrimSpace(body[:j])
			tag.Closed = true
			rest = body[j+len(closeTag):]
		} else {
			tag.Payload = strings.TrimSpace(body)
			rest = body
		}
		tags = append(tags, tag)
	}
}

// parseAttrs reads name="value" pairs; anything else is skipped.
func parseAttrs(s string) map[string]string {
	attrs := map[string]string{}
	for {
		s = strings.TrimLeft(s, " \t\r\n/")
		eq := strings.Index(s, `="`)
		if eq <= 0 {
			return attrs
		}
		name := strings.TrimSpace(s[:eq])
		rest := s[eq+2:]
		q := strings.IndexByte(rest, '"')
		if q < 0 {
			return attrs
		}
		attrs[name] = rest[:q]
		s = rest[q+1:]
	}
}

// finalComplete decides an unclosed FINAL tag by stop reason
// (docs/contracts/ai-agent.md §11): accept on a normal stop, retry on
// truncation, accept with a warning otherwise.
func finalComplete(stopReason string) (accept, warn bool) {
	switch strings.ToLower(stopReason) {
	case "stop", "end_turn", "end", "eos":
		return true, false
	case "length", "max_tokens":
		return false, false
	default:
		return true, true
	}
}

// xmlNextInput is what the XML-NEXT message advertises on one turn.
type xmlNextInput struct {
	Nonce    string
	Turn     int
	MaxTurns int
	Format   string
	Schema   string
	Final    bool
	// Slots and Tools are the numbered slots and tools (xml mode only).
	Slots    []string
	Tools    []*toolSpec
	Progress bool
	// Route says router__handoff-to is offered (natively) this turn.
	Route bool
}

// renderXMLNext builds the ephemeral per-turn instructions
// (docs/contracts/ai-agent-cli.md §12).
func renderXMLNext(in xmlNextInput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "System notice: turn %d of %d. Session nonce: %s.\n", in.Turn, in.MaxTurns, in.Nonce)
	if in.Final {
		b.WriteString("This is the final turn: no more tools can run. Provide your final report now, using the information you already have.\n")
		if in.Route {
			b.WriteString("Or hand the request off now with " + ToolRouterHandoff + ".\n")
		}
	}
	if !in.Final && len(in.Slots) > 0 {
		b.WriteString("\nTo call a tool, write a tag in one of these slots, with the JSON arguments as payload:\n")
		for _, s := range in.Slots {
			fmt.Fprintf(&b, "  <ai-agent-%s-%s tool=\"TOOL_NAME\">{JSON arguments}</ai-agent-%s-%s>\n", in.Nonce, s, in.Nonce, s)
		}
		b.WriteString("\nAvailable tools:\n")
		for _, t := range in.Tools {
			fmt.Fprintf(&b, "- %s: %s\n  input schema: %s\n", t.Name, oneLine(t.Description), compactJSON(t.InputSchema))
		}
	}
	if in.Progress && !in.Final {
		fmt.Fprintf(&b, "\nTo report progress: <ai-agent-%s-%s tool=\"agent__progress_report\">short progress text</ai-agent-%s-%s>\n",
			in.Nonce, SlotProgress, in.Nonce, SlotProgress)
	}
	fmt.Fprintf(&b, "\nWhen you have the answer, write your final report in %s format inside this tag:\n", in.Format)
	fmt.Fprintf(&b, "<ai-agent-%s-%s tool=\"agent__final_report\" format=\"%s\">YOUR REPORT</ai-agent-%s-%s>\n",
		in.Nonce, SlotFinal, in.Format, in.Nonce, SlotFinal)
	if in.Format == FormatJSON && in.Schema != "" {
		fmt.Fprintf(&b, "The report payload must be a JSON object matching this schema: %s\n", in.Schema)
	}
	if in.Format == FormatSlack {
		b.WriteString(`The report payload must be a JSON array of messages, each {"blocks":[...]}.` + "\n")
	}
	return b.String()
}

// xmlPastBlock is one tool result in the XML-PAST message.
type xmlPastBlock struct {
	SlotID   string
	Tool     string
	Status   string
	Seconds  float64
	Request  string
	Response string
}

// renderXMLPast builds the permanent user message with a turn's tag results.
func renderXMLPast(blocks []xmlPastBlock) string {
	var b strings.Builder
	for i, bl := range blocks {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "System Notice: tool response for %s (%s) status=%q duration=\"%.2fs\"\n<request>%s</request>\n<response>%s</response>",
			bl.SlotID, bl.Tool, bl.Status, bl.Seconds, bl.Request, bl.Response)
	}
	return b.String()
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// streamFilter buffers streamed text once an opening fragment of a tag of
// this nonce appears, and emits a tag's payload only when its closing tag
// arrives (docs/contracts/ai-agent.md §11, "Streaming"). Text outside tags
// is dropped.
type streamFilter struct {
	nonce   string
	pending string
	emit    func(slot, payload string)
}

func (f *streamFilter) write(s string) {
	f.pending += s
	open := tagPrefix + f.nonce + "-"
	for {
		i := strings.Index(f.pending, open)
		if i < 0 {
			f.keepPossiblePrefix(open)
			return
		}
		f.pending = f.pending[i:]
		end := strings.IndexByte(f.pending, '>')
		if end < 0 {
			return
		}
		slot, _, _ := strings.Cut(f.pending[len(open):end], " ")
		closeTag := "</ai-agent-" + f.nonce + "-" + slot + ">"
		j := strings.Index(f.pending[end+1:], closeTag)
		if j < 0 {
			return
		}
		f.emit(slot, strings.TrimSpace(f.pending[end+1:end+1+j]))
		f.pending = f.pending[end+1+j+len(closeTag):]
	}
}

// keepPossiblePrefix drops text that cannot start a tag, keeping a tail
// that may be the start of an opening fragment split across chunks.
func (f *streamFilter) keepPossiblePrefix(open string) {
	for k := min(len(open)-1, len(f.pending)); k > 0; k-- {
		if strings.HasPrefix(open, f.pending[len(f.pending)-k:]) {
			f.pending = f.pending[len(f.pending)-k:]
			return
		}
	}
	f.pending = ""
}
