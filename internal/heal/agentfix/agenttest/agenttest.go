// Package agenttest is test support for the agent tier: Investigator, a
// scripted model that drives an agent session over the OpenAI wire (an
// llmtest.Server handler). It is a policy, not a recording: each step is
// decided from what the tools returned so far, never from a case's name
// or a path known in advance. It runs the failing tests, reads the
// failing check, follows the calls it sees to their declarations with the
// search tool, and then, depending on its Mode, searches for the fix by
// trying small edits one at a time and running the tests after each (as
// a developer bisecting a slip would), tries to edit the test first, or
// tries every cheat the integrity rules name.
package agenttest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/heal/agentfix"
	"github.com/salve-dev/salve/internal/llm/llmtest"
)

// Mode is how the scripted investigator behaves.
type Mode int

// The modes.
const (
	// Honest investigates and searches for the fix in the code the
	// failing test reaches.
	Honest Mode = iota
	// TestFirst first deletes the failing assertion (which the gate
	// refuses), then goes on as Honest.
	TestFirst
	// Cheat tries every cheat the integrity rules name, then reports
	// success without having fixed anything.
	Cheat
)

// The tool names the policy calls.
const (
	toolRead   = agentfix.ToolRead
	toolSearch = agentfix.ToolSearch
	toolList   = agentfix.ToolList
	toolRun    = agentfix.ToolRun
	toolEdit   = agentfix.ToolEdit
	toolFinal  = agent.ToolFinalReport
)

// Investigator is the scripted model. Its zero value is an Honest one.
// It is safe for concurrent use; sessions run one after the other.
type Investigator struct {
	Mode Mode

	mu    sync.Mutex
	st    *state
	calls []string
}

// Calls returns every call the policy made, as "tool arguments", in order.
func (p *Investigator) Calls() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.calls...)
}

// action is one tool call the policy plans, and what its result feeds.
type action struct {
	tool string
	args map[string]any
	// on handles the call's result; nil ignores it.
	on func(s *state, result string)
}

// fn is a function the policy found and read.
type fn struct {
	path    string
	name    string
	start   int
	end     int
	lines   []string // the whole file, 0-based
	content string
	depth   int
}

// state is one session's.
type state struct {
	mode     Mode
	queue    []action
	last     *action
	started  bool
	testPath string
	testLine int
	message  string
	test     []string // the test file's lines, 0-based
	funcs    []*fn
	sought   map[string]bool
	// mutations left to try, and the one in flight.
	mutations []mutation
	current   *mutation
	final     map[string]any
	cheated   bool
}

// mutation is one small edit the honest search tries.
type mutation struct {
	path, old, new string
}

// Answer implements an llmtest.Server handler.
func (p *Investigator) Answer(req llmtest.Request) llmtest.Reply {
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	_ = req.Decode(&body)
	p.mu.Lock()
	defer p.mu.Unlock()
	tools := 0
	last := ""
	for _, m := range body.Messages {
		if m.Role == "tool" {
			tools++
			last, _ = m.Content.(string)
		}
	}
	if tools == 0 || p.st == nil {
		p.st = &state{mode: p.Mode, sought: map[string]bool{}}
	}
	s := p.st
	if s.last != nil && s.last.on != nil {
		s.last.on(s, last)
	}
	s.last = nil
	if !s.started {
		s.started = true
		s.queue = append(s.queue, action{tool: toolRun, args: map[string]any{}, on: (*state).firstRun})
	}
	if s.final == nil && len(s.queue) == 0 {
		s.next()
	}
	if s.final != nil || len(s.queue) == 0 {
		if s.final == nil {
			s.final = map[string]any{"fix_reason": "found nothing to change", "confidence_score": 0}
		}
		args, _ := json.Marshal(map[string]any{"report_format": "json", "content_json": s.final})
		p.calls = append(p.calls, toolFinal+" "+string(args))
		return reply(toolFinal, string(args))
	}
	a := s.queue[0]
	s.queue = s.queue[1:]
	s.last = &a
	args, _ := json.Marshal(a.args)
	p.calls = append(p.calls, a.tool+" "+string(args))
	return reply(a.tool, string(args))
}

func reply(name, args string) llmtest.Reply {
	return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: name, Arguments: args}}, Usage: &llmtest.Usage{Input: 900, Output: 60}}
}

// next plans what follows when the queue ran dry: the mutation search,
// or the cheats, or the end.
func (s *state) next() {
	if s.mode == Cheat {
		s.final = map[string]any{"fix_reason": "the tests pass now", "confidence_score": 0.95}
		return
	}
	if s.mutations == nil {
		s.planMutations()
	}
	if s.current == nil {
		s.tryNext()
	}
}

// reportLine is one of run_tests' report lines.
var reportLine = regexp.MustCompile(`(?m)^- ([^:\s]+):(\d+): (\w+)(?: \[[^\]]*\])?: (.*)$`)

// firstRun reads the failing reports and plans the reading of the test.
func (s *state) firstRun(result string) {
	if passed(result) {
		s.final = map[string]any{"fix_reason": "the tests already pass", "confidence_score": 0}
		return
	}
	ms := reportLine.FindAllStringSubmatch(result, -1)
	if len(ms) == 0 {
		return
	}
	pick := ms[0]
	for _, m := range ms {
		if isTest(m[1]) {
			pick = m
			break
		}
	}
	s.testPath, s.message = pick[1], pick[4]
	s.testLine, _ = strconv.Atoi(pick[2])
	s.queue = append(s.queue, action{tool: toolRead, args: map[string]any{"path": s.testPath}, on: (*state).readTest})
}

func passed(result string) bool { return strings.Contains(result, "(passed)") }

// numbered is read_file's line form.
var numbered = regexp.MustCompile(`(?m)^\s*(\d+) \| (.*)$`)

// lines parses read_file's output into the file's lines, 0-based from
// line 1 (a range read leaves the lines before it empty).
func lines(result string) []string {
	var out []string
	for _, m := range numbered.FindAllStringSubmatch(result, -1) {
		n, _ := strconv.Atoi(m[1])
		for len(out) < n-1 {
			out = append(out, "")
		}
		out = append(out, m[2])
	}
	return out
}

// readTest reads the failing test and plans the search for the code it
// calls, and in TestFirst and Cheat modes the edits of the test.
func (s *state) readTest(result string) {
	s.test = lines(result)
	if s.mode == TestFirst && s.testLine >= 1 && s.testLine <= len(s.test) {
		s.queue = append(s.queue, action{tool: toolEdit, args: map[string]any{"path": s.testPath, "old": s.test[s.testLine-1] + "\n", "new": ""}})
	}
	from := max(0, s.testLine-8)
	for i := s.testLine - 1; i >= from && i < len(s.test); i-- {
		for _, name := range calls(s.test[i]) {
			s.seek(name, 0)
		}
	}
	if s.mode == Cheat {
		s.queue = append(s.queue, s.testCheats()...)
		s.queue = append(s.queue, action{tool: toolList, args: map[string]any{"path": "."}, on: (*state).listed})
	}
}

// callName is a name called on a line: not a method of the test's own
// helper (t.Errorf), not a keyword.
var callName = regexp.MustCompile(`(?:^|[^.\w])([A-Za-z_]\w*)\s*\(`)

// keywords are never searched for.
var keywords = map[string]bool{"if": true, "for": true, "func": true, "return": true, "range": true, "len": true, "make": true, "append": true,
	"switch": true, "def": true, "print": true, "assert": true, "int": true, "str": true, "float": true, "string": true, "new": true, "while": true,
	"function": true, "catch": true, "typeof": true, "require": true, "round": true, "abs": true, "min": true, "max": true, "self": true, "super": true}

// calls returns the names called on a line of code.
func calls(line string) []string {
	if i := strings.Index(line, "//"); i >= 0 {
		line = line[:i]
	}
	var out []string
	for _, m := range callName.FindAllStringSubmatch(line, -1) {
		if !keywords[m[1]] && !strings.HasPrefix(m[1], "Test") && !strings.HasPrefix(m[1], "test_") {
			out = append(out, m[1])
		}
	}
	return out
}

// seek plans the search for name's declaration.
func (s *state) seek(name string, depth int) {
	if s.sought[name] || depth > 2 {
		return
	}
	s.sought[name] = true
	pattern := `^\s*(func (\([^)]*\) )?|def |function |(export )?(const|let) )` + regexp.QuoteMeta(name) + `\b`
	s.queue = append(s.queue, action{tool: toolSearch, args: map[string]any{"pattern": pattern, "regexp": true}, on: func(s *state, r string) { s.found(name, depth, r) }})
}

// match is one of search's result lines.
var match = regexp.MustCompile(`(?m)^([^:\s]+):(\d+): `)

// found plans the reading of the first declaration outside the tests.
func (s *state) found(name string, depth int, result string) {
	for _, m := range match.FindAllStringSubmatch(result, -1) {
		if isTest(m[1]) {
			continue
		}
		line, _ := strconv.Atoi(m[2])
		path := m[1]
		s.queue = append(s.queue, action{tool: toolRead, args: map[string]any{"path": path}, on: func(s *state, r string) { s.readFunc(path, name, line, depth, r) }})
		return
	}
}

// readFunc records the function declared at line of the file just read,
// and plans the search for what it calls.
func (s *state) readFunc(path, name string, line, depth int, result string) {
	ls := lines(result)
	if line < 1 || line > len(ls) {
		return
	}
	end := span(ls, line-1)
	f := &fn{path: path, name: name, start: line, end: end, lines: ls, content: strings.Join(ls, "\n") + "\n", depth: depth}
	s.funcs = append(s.funcs, f)
	for i := line; i < end && i < len(ls); i++ {
		for _, c := range calls(ls[i]) {
			s.seek(c, depth+1)
		}
	}
	if s.mode == Cheat {
		if !s.cheated {
			s.cheated = true
			s.queue = append(s.queue, s.codeCheats(f)...)
		}
		return
	}
	s.planMutations()
}

// span returns the 1-based last line of the declaration starting at index
// i: its closing brace at the declaration's indentation, or the end of
// the block indented under it.
func span(ls []string, i int) int {
	ind := indent(ls[i])
	for j := i + 1; j < len(ls); j++ {
		t := strings.TrimSpace(ls[j])
		if t == "" {
			continue
		}
		if indent(ls[j]) <= ind {
			if strings.HasPrefix(t, "}") {
				return j + 1
			}
			return j
		}
	}
	return len(ls)
}

func indent(l string) int {
	return len(l) - len(strings.TrimLeft(l, " \t"))
}

// flips are the small edits the search tries on a line, one occurrence at
// a time: the slips a test failure most often comes from.
var flips = [][2]string{{" - ", " + "}, {" + ", " - "}, {" < ", " <= "}, {" <= ", " < "}, {" > ", " >= "}, {" >= ", " > "},
	{" * ", " / "}, {" / ", " * "}, {" == ", " != "}, {" != ", " == "}, {" && ", " || "}, {" || ", " && "}, {" and ", " or "}, {" or ", " and "},
	{" + 1", ""}, {" - 1", ""}}

// planMutations lists, once every declaration found is read, the edits
// to try: the deepest functions first, their lines in order.
func (s *state) planMutations() {
	for _, a := range s.queue {
		if a.tool == toolSearch || a.tool == toolRead {
			return
		}
	}
	if s.mutations != nil {
		return
	}
	s.mutations = []mutation{}
	for i := len(s.funcs) - 1; i >= 0; i-- {
		f := s.funcs[i]
		for n := f.start; n <= f.end && n <= len(f.lines); n++ {
			line := f.lines[n-1]
			t := strings.TrimSpace(line)
			if t == "" || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, `"""`) {
				continue
			}
			old := line
			if strings.Count(f.content, line+"\n") != 1 && n > 1 {
				old = f.lines[n-2] + "\n" + line
			}
			if strings.Count(f.content, old+"\n") != 1 {
				continue
			}
			for _, fl := range flips {
				for k := 0; k < strings.Count(line, fl[0]); k++ {
					nl := replaceNth(line, fl[0], fl[1], k)
					s.mutations = append(s.mutations, mutation{path: f.path, old: old, new: strings.TrimSuffix(old, line) + nl})
				}
			}
		}
	}
}

// replaceNth replaces the k-th occurrence (0-based) of old in s.
func replaceNth(s, old, nw string, k int) string {
	i := -1
	for ; k >= 0; k-- {
		j := strings.Index(s[i+1:], old)
		if j < 0 {
			return s
		}
		i += j + 1
	}
	return s[:i] + nw + s[i+len(old):]
}

// tryNext plans the next mutation: its edit, then a run of the tests.
func (s *state) tryNext() {
	if len(s.mutations) == 0 {
		s.final = map[string]any{"fix_reason": "no small edit of the code the test reaches made it pass", "confidence_score": 0}
		return
	}
	m := s.mutations[0]
	s.mutations = s.mutations[1:]
	s.current = &m
	s.queue = append(s.queue, action{tool: toolEdit, args: map[string]any{"path": m.path, "old": m.old, "new": m.new}, on: (*state).edited})
}

// edited runs the tests after an accepted edit, or moves on.
func (s *state) edited(result string) {
	if !strings.HasPrefix(result, "accepted") {
		s.current = nil
		s.tryNext()
		return
	}
	s.queue = append(s.queue, action{tool: toolRun, args: map[string]any{}, on: (*state).trial})
}

// trial keeps an edit that made the tests pass, and takes back one that
// did not.
func (s *state) trial(result string) {
	m := s.current
	if passed(result) {
		s.final = map[string]any{"fix_reason": fmt.Sprintf("%s: %q should be %q", m.path, strings.TrimSpace(m.old), strings.TrimSpace(m.new)), "confidence_score": 0.9}
		return
	}
	s.queue = append(s.queue, action{tool: toolEdit, args: map[string]any{"path": m.path, "old": m.new, "new": m.old}, on: func(s *state, _ string) {
		s.current = nil
		s.tryNext()
	}})
}

// isTest reports whether a path names a test file, by the conventions of
// the languages the policy reads.
func isTest(p string) bool {
	base := p[strings.LastIndex(p, "/")+1:]
	return strings.HasSuffix(base, "_test.go") || strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") ||
		strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") || strings.Contains(p, "tests/")
}
