package headend

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/salve-dev/salve/contract"
)

// Slack's documented Block Kit limits (api.slack.com/reference/block-kit).
const (
	slackSectionMax = 3000
	slackHeaderMax  = 150
	slackBlocksMax  = 50
	slackFieldsMax  = 10
	slackFieldMax   = 2000
	slackContextMax = 10
)

// slackPost is one message of an answer: its blocks (at most
// slackBlocksMax) and the text Slack shows in notifications.
type slackPost struct {
	Text   string
	Blocks []any
}

// slackAnswer renders a session's result as Slack messages (docs/ai-agent.md,
// Slack headend): a slack-block-kit report keeps the model's blocks,
// checked against Slack's limits; any other answer, a failure included,
// becomes mrkdwn sections. The first message replaces the opener, the
// others follow in the thread.
func slackAnswer(res contract.AIAgentResult) []slackPost {
	if rep := res.FinalReport; res.Success && rep != nil && rep.Format == "slack-block-kit" && len(rep.Messages) > 0 {
		if posts := blockKitPosts(rep.Messages); len(posts) > 0 {
			return posts
		}
	}
	return textPosts(slackFinalText(res))
}

// textPosts renders text (markdown) as mrkdwn sections, split within
// Slack's limits.
func textPosts(text string) []slackPost {
	var blocks []any
	for _, chunk := range splitMrkdwn(toMrkdwn(text), slackSectionMax) {
		blocks = append(blocks, section(chunk))
	}
	if len(blocks) == 0 {
		blocks = append(blocks, section("✅ Done"))
	}
	return paginate(blocks)
}

func section(text string) map[string]any {
	return map[string]any{"type": "section", "text": map[string]any{"type": "mrkdwn", "text": text}}
}

// paginate puts blocks into messages of at most slackBlocksMax, each with
// the text of its first block as its notification text.
func paginate(blocks []any) []slackPost {
	var out []slackPost
	for len(blocks) > 0 {
		n := min(len(blocks), slackBlocksMax)
		out = append(out, slackPost{Text: fallbackText(blocks[:n]), Blocks: blocks[:n:n]})
		blocks = blocks[n:]
	}
	return out
}

// fallbackText is the first text of blocks, for notifications.
func fallbackText(blocks []any) string {
	for _, b := range blocks {
		m, _ := b.(map[string]any)
		if t, ok := m["text"].(map[string]any); ok {
			if s, _ := t["text"].(string); strings.TrimSpace(s) != "" {
				return s
			}
		}
	}
	return "Report posted as Block Kit messages."
}

// blockKitPosts checks the model's messages ({"blocks": [...]} each): a
// block that is not an object is dropped, text is escaped for mrkdwn, a
// long section is split, a long header clipped, and a message of more
// than slackBlocksMax blocks continues in the next.
func blockKitPosts(msgs []json.RawMessage) []slackPost {
	var out []slackPost
	for _, raw := range msgs {
		var m struct {
			Blocks []json.RawMessage `json:"blocks"`
		}
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		var blocks []any
		for _, rb := range m.Blocks {
			var b map[string]any
			if json.Unmarshal(rb, &b) != nil || b == nil {
				continue
			}
			blocks = append(blocks, fixBlock(b)...)
		}
		out = append(out, paginate(blocks)...)
	}
	return out
}

// fixBlock holds one block to Slack's limits; it may become several
// sections, or none.
func fixBlock(b map[string]any) []any {
	switch b["type"] {
	case "section":
		text, isMrkdwn := textOf(b["text"])
		fields := fixFields(b["fields"])
		if strings.TrimSpace(text) == "" {
			if len(fields) == 0 {
				return nil
			}
			delete(b, "text")
			b["fields"] = fields
			return []any{b}
		}
		if isMrkdwn {
			text = escapeMrkdwn(text)
		}
		chunks := splitMrkdwn(text, slackSectionMax)
		var out []any
		for i, c := range chunks {
			s := map[string]any{"type": "section", "text": map[string]any{"type": textType(isMrkdwn), "text": c}}
			if i == 0 {
				for k, v := range b {
					if k != "text" && k != "fields" {
						s[k] = v
					}
				}
				if len(fields) > 0 {
					s["fields"] = fields
				}
			}
			out = append(out, s)
		}
		return out
	case "header":
		text, _ := textOf(b["text"])
		if strings.TrimSpace(text) == "" {
			return nil
		}
		b["text"] = map[string]any{"type": "plain_text", "text": clipRunes(text, slackHeaderMax)}
		return []any{b}
	case "context":
		els, _ := b["elements"].([]any)
		var kept []any
		for _, e := range els {
			if em, ok := e.(map[string]any); ok {
				if t, isMrkdwn := textOf(em); t != "" {
					if isMrkdwn {
						t = escapeMrkdwn(t)
					}
					em["text"] = clipRunes(t, slackSectionMax)
				}
				kept = append(kept, em)
			}
			if len(kept) == slackContextMax {
				break
			}
		}
		if len(kept) == 0 {
			return nil
		}
		b["elements"] = kept
		return []any{b}
	}
	return []any{b}
}

func textType(mrkdwn bool) string {
	if mrkdwn {
		return "mrkdwn"
	}
	return "plain_text"
}

// textOf reads a text object (or a bare string) and whether it is mrkdwn.
func textOf(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case map[string]any:
		s, _ := t["text"].(string)
		return s, t["type"] != "plain_text"
	}
	return "", false
}

// fixFields keeps at most slackFieldsMax non-empty fields, each clipped.
func fixFields(v any) []any {
	list, _ := v.([]any)
	var out []any
	for _, f := range list {
		text, isMrkdwn := textOf(f)
		if strings.TrimSpace(text) == "" {
			continue
		}
		if isMrkdwn {
			text = escapeMrkdwn(text)
		}
		out = append(out, map[string]any{"type": textType(isMrkdwn), "text": clipRunes(text, slackFieldMax)})
		if len(out) == slackFieldsMax {
			break
		}
	}
	return out
}

// slackControl matches what mrkdwn writes with angle brackets on purpose
// (user, channel and group mentions, special mentions, dates, links) and
// the three entities Slack decodes.
var slackControl = regexp.MustCompile(`<(?:[@#][A-Z0-9]+(?:\|[^<>]*)?|![a-z]+(?:\^[^<>]*)?(?:\|[^<>]*)?|(?:https?|mailto|tel):[^<>\s|]+(?:\|[^<>]*)?)>|&(?:amp|lt|gt);`)

// escapeMrkdwn escapes &, < and > as Slack asks, except in its own control
// sequences and entities.
func escapeMrkdwn(s string) string {
	if !strings.ContainsAny(s, "&<>") {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range slackControl.FindAllStringIndex(s, -1) {
		b.WriteString(escapeAll(s[last:m[0]]))
		b.WriteString(s[m[0]:m[1]])
		last = m[1]
	}
	b.WriteString(escapeAll(s[last:]))
	return b.String()
}

var mrkdwnEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func escapeAll(s string) string { return mrkdwnEscaper.Replace(s) }

// Markdown forms that mrkdwn writes otherwise.
var (
	mdHeading = regexp.MustCompile(`^#{1,6}\s+(.+?)\s*#*\s*$`)
	mdBold    = regexp.MustCompile(`\*\*([^*\n]+)\*\*|__([^_\n]+)__`)
	mdStrike  = regexp.MustCompile(`~~([^~\n]+)~~`)
	mdLink    = regexp.MustCompile(`\[([^\]\n]+)\]\((https?://[^)\s]+)\)`)
)

// toMrkdwn turns a markdown answer into Slack's mrkdwn: &, < and >
// escaped (but for Slack's own mentions and links), headings and **bold** as *bold*, ~~strike~~ as
// ~strike~, [text](url) as <url|text>; code blocks are only escaped.
func toMrkdwn(md string) string {
	lines := strings.Split(strings.TrimSpace(md), "\n")
	inCode := false
	for i, line := range lines {
		line = escapeMrkdwn(line)
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inCode = !inCode
			lines[i] = line
			continue
		}
		if !inCode {
			if m := mdHeading.FindStringSubmatch(line); m != nil {
				line = "*" + strings.Trim(m[1], "*") + "*"
			}
			line = mdBold.ReplaceAllStringFunc(line, func(s string) string { return "*" + s[2:len(s)-2] + "*" })
			line = mdStrike.ReplaceAllString(line, "~$1~")
			line = mdLink.ReplaceAllString(line, "<$2|$1>")
		}
		lines[i] = line
	}
	return strings.Join(lines, "\n")
}

// splitMrkdwn cuts text into pieces of at most limit characters (as
// Slack counts them, in UTF-16), at line ends where it can; a code block
// cut in two is closed and reopened so that both pieces render.
func splitMrkdwn(text string, limit int) []string {
	const fence = "```"
	if strings.TrimSpace(text) == "" {
		return nil
	}
	if utf16Len(text) <= limit {
		return []string{text}
	}
	room := limit - len(fence) - 1 // a closing "\n```" always fits
	var out, cur []string
	curLen, inCode := 0, false
	flush := func() {
		s := strings.Join(cur, "\n")
		if inCode {
			s += "\n" + fence
		}
		if strings.Trim(s, "`\n\t ") != "" {
			out = append(out, s)
		}
		cur, curLen = nil, 0
		if inCode {
			cur, curLen = []string{fence}, len(fence)
		}
	}
	add := func(line string) {
		sep := 0
		if len(cur) > 0 {
			sep = 1
		}
		cur = append(cur, line)
		curLen += sep + utf16Len(line)
	}
	for _, line := range strings.Split(text, "\n") {
		if len(cur) > 0 && !fits(line, room-curLen-1) {
			flush()
		}
		for {
			sep := 0
			if len(cur) > 0 {
				sep = 1
			}
			if fits(line, room-curLen-sep) {
				break
			}
			head, tail := cutLine(line, room-curLen-sep)
			add(head)
			flush()
			line = tail
		}
		add(line)
		if strings.HasPrefix(strings.TrimSpace(line), fence) {
			inCode = !inCode
		}
	}
	inCode = false
	flush()
	return out
}

// cutLine splits line so that head is at most n characters and not
// empty: at the last space in the second half of what fits, else before
// an entity or a link it would cut. It reads only what fits.
func cutLine(line string, n int) (head, tail string) {
	var ends []int // byte offset after each character that fits
	size := 0
	for i, r := range line {
		w := 1
		if r > 0xFFFF {
			w = 2
		}
		if size+w > n && len(ends) > 0 {
			break
		}
		size += w
		ends = append(ends, i+utf8.RuneLen(r))
		if r == utf8.RuneError {
			ends[len(ends)-1] = i + 1
		}
	}
	k := len(ends)
	cut := ends[k-1]
	for j := k - 1; j > k/2; j-- {
		c := line[ends[j-1]]
		if c == ' ' {
			cut = ends[j-1] + 1
			break
		}
		if (c == '&' || c == '<') && k-j < 8 {
			cut = ends[j-1]
			break
		}
	}
	return line[:cut], line[cut:]
}

// fits reports whether s has at most n characters, reading no further.
func fits(s string, n int) bool {
	if len(s) <= n {
		return true
	}
	size := 0
	for _, r := range s {
		size++
		if r > 0xFFFF {
			size++
		}
		if size > n {
			return false
		}
	}
	return true
}

// clipRunes keeps the first n characters of s.
func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
