package guidetest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// block is one fenced code block of a guide page.
type block struct {
	file string
	line int // the line of the opening fence, from 1
	lang string
	text string
	// skip is the reason of a skip annotation, or "".
	skip string
	// exits maps the start of a command's text to the exit status it is
	// meant to have; any other command must exit 0.
	exits map[string]int
}

func (b block) name() string { return fmt.Sprintf("%s:%d", filepath.Base(b.file), b.line) }

// annotationRE matches one guide-test annotation line.
var annotationRE = regexp.MustCompile(`^<!--\s*guide-test:\s*(.*?)\s*-->$`)

// exitRE is the body of an exit annotation: "exit N: COMMAND".
var exitRE = regexp.MustCompile(`^exit\s+(\d{1,3}):\s*(\S.*)$`)

// parseBlocks returns the fenced blocks of a markdown text with the
// annotations on the lines just before each. An annotation that is not
// followed by a block, or that it cannot read, is an error.
func parseBlocks(file, text string) ([]block, error) {
	var (
		out     []block
		pending []string
		pendAt  int
		cur     *block
		body    []string
	)
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trim := strings.TrimSpace(line)
		if cur != nil {
			if strings.HasPrefix(trim, "```") {
				cur.text = strings.Join(body, "\n")
				out = append(out, *cur)
				cur, body = nil, nil
				continue
			}
			body = append(body, line)
			continue
		}
		if m := annotationRE.FindStringSubmatch(trim); m != nil {
			if len(pending) == 0 {
				pendAt = n
			}
			pending = append(pending, m[1])
			continue
		}
		if strings.HasPrefix(trim, "```") {
			b := block{file: file, line: n, lang: strings.TrimSpace(strings.TrimPrefix(trim, "```"))}
			if err := b.annotate(pending); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", file, pendAt, err)
			}
			pending = nil
			cur = &b
			continue
		}
		if trim != "" && len(pending) > 0 {
			return nil, fmt.Errorf("%s:%d: a guide-test annotation must come just before a fenced block", file, pendAt)
		}
	}
	switch {
	case cur != nil:
		return nil, fmt.Errorf("%s:%d: the block is never closed", file, cur.line)
	case len(pending) > 0:
		return nil, fmt.Errorf("%s:%d: a guide-test annotation must come just before a fenced block", file, pendAt)
	}
	return out, sc.Err()
}

// annotate applies the annotations read before b.
func (b *block) annotate(notes []string) error {
	for _, note := range notes {
		if reason, ok := strings.CutPrefix(note, "skip "); ok && strings.TrimSpace(reason) != "" {
			b.skip = strings.TrimSpace(reason)
			continue
		}
		m := exitRE.FindStringSubmatch(note)
		if m == nil {
			return fmt.Errorf("unknown guide-test annotation %q (want \"skip REASON\" or \"exit N: COMMAND\")", note)
		}
		code, _ := strconv.Atoi(m[1])
		if b.exits == nil {
			b.exits = map[string]int{}
		}
		b.exits[m[2]] = code
	}
	return nil
}

// commands splits a shell block into its commands: one a line, a line
// ending in a backslash continuing on the next, blank lines and comment
// lines left out.
func commands(text string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(text, "\n") {
		if cur.Len() == 0 {
			t := strings.TrimSpace(line)
			if t == "" || strings.HasPrefix(t, "#") {
				continue
			}
		}
		if strings.HasSuffix(line, "\\") {
			cur.WriteString(line)
			cur.WriteString("\n")
			continue
		}
		cur.WriteString(line)
		out = append(out, cur.String())
		cur.Reset()
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// exitFor is the exit status b means cmd to have.
func (b block) exitFor(cmd string) (int, string) {
	for prefix, code := range b.exits {
		if strings.HasPrefix(strings.TrimSpace(cmd), prefix) {
			return code, prefix
		}
	}
	return 0, ""
}

// guideBlocks reads every page of docs/guide.
func guideBlocks(t *testing.T) []block {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, "docs", "guide", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no guide pages: %v", err)
	}
	sort.Strings(files)
	var all []block
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := parseBlocks(f, string(b))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, blocks...)
	}
	return all
}

func TestParseBlocks(t *testing.T) {
	page := "# Title\n\n" +
		"```sh\necho one\n# a comment\n\necho two \\\n  --flag\n```\n\n" +
		"<!-- guide-test: skip needs the network -->\n```sh\ncurl x\n```\n" +
		"<!-- guide-test: exit 1: false -->\n<!-- guide-test: exit 3: sh -c -->\n```sh\nfalse   # fails\nsh -c 'exit 3'\ntrue\n```\n" +
		"```json\n{}\n```\n"
	blocks, err := parseBlocks("p.md", page)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 4 {
		t.Fatalf("%d blocks, want 4", len(blocks))
	}
	if got := commands(blocks[0].text); len(got) != 2 || got[0] != "echo one" || got[1] != "echo two \\\n  --flag" {
		t.Errorf("commands %q", got)
	}
	if blocks[1].skip != "needs the network" || blocks[0].skip != "" {
		t.Errorf("skip %q / %q", blocks[1].skip, blocks[0].skip)
	}
	b := blocks[2]
	for cmd, want := range map[string]int{"false   # fails": 1, "sh -c 'exit 3'": 3, "true": 0} {
		if got, _ := b.exitFor(cmd); got != want {
			t.Errorf("exitFor(%q) = %d, want %d", cmd, got, want)
		}
	}
	if blocks[3].lang != "json" || blocks[1].line != 12 {
		t.Errorf("block 3 lang %q, block 1 line %d", blocks[3].lang, blocks[1].line)
	}
	for _, bad := range []string{
		"<!-- guide-test: skip -->\n```sh\nx\n```\n",
		"<!-- guide-test: exit one: x -->\n```sh\nx\n```\n",
		"<!-- guide-test: skip why -->\nprose\n```sh\nx\n```\n",
		"<!-- guide-test: skip why -->\n",
		"```sh\nnever closed\n",
	} {
		if _, err := parseBlocks("bad.md", bad); err == nil {
			t.Errorf("no error for %q", bad)
		}
	}
}
