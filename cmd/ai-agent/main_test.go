package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/buildinfo"
	"github.com/salve-dev/salve/internal/llm"
)

// fakeProvider answers every request with a final report (native call or
// FINAL tag by transport) unless fail is set; it records requests.
type fakeProvider struct {
	mu   sync.Mutex
	reqs []llm.Request
	fail error
}

func (f *fakeProvider) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	if f.fail != nil {
		return llm.Response{}, f.fail
	}
	payload := "the report"
	if req.Session.Format == "json" {
		payload = `{"b":1,"a":2.50}`
	}
	if req.Session.Transport == "native" {
		args, _ := json.Marshal(map[string]any{"report_format": req.Session.Format, "report_content": payload})
		if req.Session.Format == "json" {
			args = []byte(`{"report_format":"json","content_json":` + payload + `}`)
		}
		return llm.Response{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "agent__final_report", Arguments: string(args)}}, StopReason: "tool_calls"}, nil
	}
	return llm.Response{Content: "<ai-agent-" + req.Session.Nonce + "-FINAL tool=\"agent__final_report\" format=\"" + req.Session.Format + "\">" +
		payload + "</ai-agent-" + req.Session.Nonce + "-FINAL>", StopReason: "stop"}, nil
}

type env struct {
	dir  string
	fake *fakeProvider
}

func newEnv(t *testing.T, config string) *env {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("HOME", filepath.Join(dir, "home"))
	if config != "" {
		if err := os.WriteFile(filepath.Join(dir, ".ai-agent.json"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &env{dir: dir, fake: &fakeProvider{}}
}

const baseConfig = `{"providers":{"p":{"type":"openai-compatible","baseUrl":"http://127.0.0.1:1","apiKey":"sk-secret-123"}}}`

func (e *env) run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	d := deps{providers: map[string]providerFactory{
		"openai-compatible": func(providerSpec) (llm.Provider, error) { return e.fake, nil },
	}}
	var out, errOut bytes.Buffer
	code := runWith(context.Background(), d, args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestExitCodes(t *testing.T) {
	cases := []struct {
		name   string
		config string
		args   []string
		want   int
	}{
		{"success", baseConfig, []string{"--models", "p/m", "sys", "user"}, exitOK},
		{"help", "", []string{"--help"}, exitOK},
		{"version", "", []string{"-V"}, exitOK},
		{"dry run", baseConfig, []string{"--dry-run", "--models", "p/m", "sys"}, exitOK},
		{"missing prompts", baseConfig, []string{"--models", "p/m"}, exitConfig},
		{"missing user", baseConfig, []string{"--models", "p/m", "sys"}, exitConfig},
		{"third positional", baseConfig, []string{"--models", "p/m", "a", "b", "c"}, exitConfig},
		{"both stdin", baseConfig, []string{"--models", "p/m", "-", "-"}, exitConfig},
		{"unknown flag", baseConfig, []string{"--nope", "a", "b"}, exitConfig},
		{"missing value", baseConfig, []string{"a", "b", "--max-turns"}, exitConfig},
		{"bad value", baseConfig, []string{"--max-turns", "0", "a", "b"}, exitConfig},
		{"headend", baseConfig, []string{"--slack", "a", "b"}, exitConfig},
		{"no model", baseConfig, []string{"a", "b"}, exitConfig},
		{"unknown provider", baseConfig, []string{"--models", "q/m", "a", "b"}, exitConfig},
		{"empty model part", baseConfig, []string{"--models", "p/", "a", "b"}, exitConfig},
		{"missing config", baseConfig, []string{"--config", "nope.json", "--models", "p/m", "a", "b"}, exitConfig},
		{"config not object", `[1]`, []string{"--models", "p/m", "a", "b"}, exitConfig},
		{"missing variable", `{"providers":{"p":{"type":"openai-compatible","apiKey":"${NOT_SET_ANYWHERE}"}}}`, []string{"--models", "p/m", "a", "b"}, exitConfig},
		{"unknown tool", baseConfig, []string{"--models", "p/m", "--tools", "ghost", "a", "b"}, exitInit},
		{"schema not JSON", baseConfig, []string{"--models", "p/m", "--schema", "{", "a", "b"}, exitConfig},
		{"schema invalid", baseConfig, []string{"--models", "p/m", "--schema", `{"type":12}`, "a", "b"}, exitSchema},
		{"bad format", baseConfig, []string{"--models", "p/m", "--format", "xml", "a", "b"}, exitConfig},
		{"bad override", baseConfig, []string{"--models", "p/m", "--override", "nope=1", "a", "b"}, exitConfig},
		{"result-json dash", baseConfig, []string{"--models", "p/m", "--result-json", "-", "a", "b"}, exitConfig},
		{"bad frontmatter key", baseConfig, []string{"--models", "p/m", "---\nbogus: 1\n---\nsys", "u"}, exitConfig},
		{"queue undefined", `{"providers":{"p":{"type":"openai-compatible"}},"restTools":{"r":{"url":"http://x","queue":"nope"}}}`,
			[]string{"--models", "p/m", "--tools", "r", "a", "b"}, exitConfig},
		{"missing absolute prompt", baseConfig, []string{"--models", "p/m", "/definitely/not/here.txt", "b"}, exitConfig},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.config)
			code, _, stderr := e.run(t, "", tc.args...)
			if code != tc.want {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.want, stderr)
			}
		})
	}
}

// TestFileFlagsNameTheFile checks every argument that names a file to
// read: a missing or unreadable one is a configuration error (exit 4) whose
// message names the file, never a run with the name taken as text.
func TestFileFlagsNameTheFile(t *testing.T) {
	cases := []struct {
		name string
		args []string
		file string
	}{
		{"agent missing", []string{"--models", "p/m", "--agent", "typo.ai", "question"}, "typo.ai"},
		{"agent missing dry run", []string{"--models", "p/m", "--dry-run", "--agent", "typo.ai"}, "typo.ai"},
		{"agent directory", []string{"--models", "p/m", "--agent", "adir", "question"}, "adir"},
		{"agent headend", []string{"--models", "p/m", "--agent", "typo.ai", "--api", "0"}, "typo.ai"},
		{"config missing", []string{"--config", "nope.json", "--models", "p/m", "a", "b"}, "nope.json"},
		{"config directory", []string{"--config", "adir", "--models", "p/m", "a", "b"}, "adir"},
		{"schema file missing", []string{"--models", "p/m", "--schema", "@nope.json", "a", "b"}, "nope.json"},
		{"schema file directory", []string{"--models", "p/m", "--schema", "@adir", "a", "b"}, "adir"},
		{"system prompt file missing", []string{"--models", "p/m", "@nope.md", "b"}, "nope.md"},
		{"user prompt file missing", []string{"--models", "p/m", "a", "@nope.md"}, "nope.md"},
		{"prompt file directory", []string{"--models", "p/m", "@adir", "b"}, "adir"},
		{"sub-agent missing", []string{"--models", "p/m", "--agents", "nope.ai", "a", "b"}, "nope.ai"},
		{"sub-agent directory", []string{"--models", "p/m", "--agents", "adir", "a", "b"}, "adir"},
		{"sub-agent of the frontmatter", []string{"--models", "p/m", "---\nagents: [gone.ai]\n---\nsys", "b"}, "gone.ai"},
		{"schemaRef missing", []string{"--models", "p/m", "---\noutput:\n  format: json\n  schemaRef: s.json\n---\nsys", "b"}, "s.json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, baseConfig)
			if err := os.Mkdir(filepath.Join(e.dir, "adir"), 0o755); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := e.run(t, "", tc.args...)
			if code != exitConfig || stdout != "" || !strings.Contains(stderr, tc.file) {
				t.Fatalf("exit %d, stdout %q, stderr %q: want exit %d and a message naming %s", code, stdout, stderr, exitConfig, tc.file)
			}
			if len(e.fake.reqs) > 0 {
				t.Fatalf("the model was called %d times", len(e.fake.reqs))
			}
		})
	}
}

// TestVersion checks --version and its -V alias: "ai-agent VERSION" on
// stdout, exit 0, as the other two binaries print theirs.
func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "-V"} {
		e := newEnv(t, "")
		code, stdout, stderr := e.run(t, "", arg)
		if want := "ai-agent " + buildinfo.Version(version) + "\n"; code != exitOK || stdout != want || stderr != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %q", arg, code, stdout, stderr, want)
		}
	}
}

func TestFatalErrorExitsOne(t *testing.T) {
	e := newEnv(t, baseConfig)
	e.fake.fail = &llm.Error{Class: llm.ClassAuth, Status: 401, Message: "invalid api key"}
	res := filepath.Join(e.dir, "r.json")
	code, stdout, stderr := e.run(t, "", "--models", "p/m", "--result-json", res, "sys", "user")
	if code != exitFailure || stdout != "" || !strings.Contains(stderr, "AGENT FAILED: invalid api key") {
		t.Fatalf("code %d stdout %q stderr %q", code, stdout, stderr)
	}
	var r contract.AIAgentResult
	b, _ := os.ReadFile(res)
	if err := json.Unmarshal(b, &r); err != nil || r.Success || r.Error != "invalid api key" || r.FinalReport != nil {
		t.Fatalf("result = %s", b)
	}
}

func TestStdoutCarriesOnlyTheReport(t *testing.T) {
	for _, transport := range []string{"native", "xml-final", "xml"} {
		t.Run(transport, func(t *testing.T) {
			e := newEnv(t, baseConfig)
			code, stdout, _ := e.run(t, "", "--models", "p/m", "--verbose", "--tooling-transport", transport, "sys", "user")
			if code != exitOK || stdout != "the report\n" {
				t.Fatalf("code %d stdout %q", code, stdout)
			}
		})
	}
}

func TestJSONOutputKeepsOrderAndNumbers(t *testing.T) {
	e := newEnv(t, baseConfig)
	code, stdout, _ := e.run(t, "", "--models", "p/m", "--format", "markdown", "--schema", `{"type":"object"}`, "sys", "user")
	if code != exitOK || stdout != "{\n  \"b\": 1,\n  \"a\": 2.50\n}\n" {
		t.Fatalf("code %d stdout %q", code, stdout)
	}
}

func TestStartupErrorResultJSON(t *testing.T) {
	e := newEnv(t, baseConfig)
	res := filepath.Join(e.dir, "r.json")
	code, _, _ := e.run(t, "", "--models", "p/m", "--tools", "ghost", "--result-json", res, "a", "b")
	b, err := os.ReadFile(res)
	if code != exitInit || err != nil {
		t.Fatalf("code %d err %v", code, err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || len(m) != 4 || m["success"] != false || m["error"] == "" || !strings.HasSuffix(string(b), "\n") {
		t.Fatalf("result = %s", b)
	}
}

func TestPrecedenceReachesTheRequest(t *testing.T) {
	cfg := `{"providers":{"p":{"type":"openai-compatible","models":{"forced":{"overrides":{"temperature":0.9,"topK":null}}}}},
		"defaults":{"temperature":0.1,"topP":0.3,"topK":5,"maxOutputTokens":100}}`
	cases := []struct {
		name  string
		args  []string
		temp  *float64
		topP  *float64
		topK  *int
		maxTk int
	}{
		{"defaults", []string{"--models", "p/m"}, ptr(0.1), ptr(0.3), iptr(5), 100},
		{"flag beats defaults", []string{"--models", "p/m", "--temperature", "0.7", "--top-p", "unset"}, ptr(0.7), nil, iptr(5), 100},
		{"override beats flag", []string{"--models", "p/m", "--temperature", "0.7", "--override", "temperature=1.5"}, ptr(1.5), ptr(0.3), iptr(5), 100},
		{"model overrides beat all", []string{"--models", "p/forced", "--override", "temperature=1.5"}, ptr(0.9), ptr(0.3), nil, 100},
		{"frontmatter beats defaults", []string{"--models", "p/m", "---\ntemperature: 0.4\nmaxOutputTokens: 50\n---\nsys"}, ptr(0.4), ptr(0.3), iptr(5), 50},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, cfg)
			args := tc.args
			if !strings.HasPrefix(args[len(args)-1], "---") {
				args = append(args, "sys")
			}
			args = append(args, "user")
			if code, _, stderr := e.run(t, "", args...); code != exitOK {
				t.Fatalf("code %d: %s", code, stderr)
			}
			r := e.fake.reqs[0]
			if !eqF(r.Temperature, tc.temp) || !eqF(r.TopP, tc.topP) || !eqI(r.TopK, tc.topK) || r.MaxOutputTokens != tc.maxTk {
				t.Fatalf("request temp %v topP %v topK %v max %d", deref(r.Temperature), deref(r.TopP), r.TopK, r.MaxOutputTokens)
			}
		})
	}
}

func ptr(f float64) *float64 { return &f }
func iptr(i int) *int        { return &i }
func eqF(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
func eqI(a, b *int) bool     { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

func TestPromptsStdinFilesAndVariables(t *testing.T) {
	e := newEnv(t, baseConfig)
	sys := filepath.Join(e.dir, "agent.ai")
	if err := os.WriteFile(sys, []byte("#!/usr/bin/env ai-agent\n---\nmodels: p/m\nmaxTurns: 4\n---\nTurns ${MAX_TURNS}, format {{FORMAT}}, keep ${HOME}"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := e.run(t, "from stdin", sys, "-")
	if code != exitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	msgs := e.fake.reqs[0].Messages
	if msgs[0].Content != "Turns 4, format plain text without markdown, keep ${HOME}" || msgs[1].Content != "from stdin" {
		t.Fatalf("prompts = %q / %q", msgs[0].Content, msgs[1].Content)
	}
}

func TestBillingAndSessionFiles(t *testing.T) {
	e := newEnv(t, baseConfig)
	bill := filepath.Join(e.dir, "bill.jsonl")
	sessions := filepath.Join(e.dir, "sessions")
	for range 2 {
		if code, _, _ := e.run(t, "", "--models", "p/m", "--billing-file", bill, "--sessions-dir", sessions, "s", "u"); code != exitOK {
			t.Fatalf("code %d", code)
		}
	}
	b, _ := os.ReadFile(bill)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 {
		t.Fatalf("billing lines = %d:\n%s", len(lines), b)
	}
	files, _ := filepath.Glob(filepath.Join(sessions, "*.json.gz"))
	if len(files) != 2 {
		t.Fatalf("session files = %v", files)
	}
	f, _ := os.Open(files[0])
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(zr)
	var r contract.AIAgentResult
	if err := json.Unmarshal(raw, &r); err != nil || !r.Success {
		t.Fatalf("session file: %v %s", err, raw)
	}
	if bytes.Contains(b, []byte("sk-secret-123")) || bytes.Contains(raw, []byte("sk-secret-123")) {
		t.Fatalf("api key leaked")
	}
}

func TestParseArgsSyntax(t *testing.T) {
	a, err := parseArgs([]string{"sys", "--models=a/b", "--tools", "x,y", "--tool", "z", "--override", "maxTurns=2", "--stream", "--", "--user"})
	if err != nil {
		t.Fatal(err)
	}
	if a.values["models"] != "a/b" || strings.Join(a.lists["tools"], ",") != "x,y,z" || !a.bools["stream"] ||
		strings.Join(a.positionals, "|") != "sys|--user" || a.overrides[0] != "maxTurns=2" {
		t.Fatalf("parsed = %+v", a)
	}
	if _, err := parseArgs([]string{"--cache", "x", "--trace-sdk", "--telemetry-foo", "bar", "a"}); err != nil {
		t.Fatalf("ignored flags rejected: %v", err)
	}
}

func TestRender(t *testing.T) {
	s := func(v string) *string { return &v }
	cases := []struct {
		name string
		rep  *contract.FinalReport
		want string
	}{
		{"nil", nil, ""},
		{"text", &contract.FinalReport{Format: "pipe", Content: s("hi")}, "hi\n"},
		{"tty escapes", &contract.FinalReport{Format: "tty", Content: s(`\x1b[1mB\U001B[0m`)}, "\x1b[1mB\x1b[0m\n"},
		{"json", &contract.FinalReport{Format: "json", ContentJSON: json.RawMessage(`{"z":1e3,"a":[1]}`)}, "{\n  \"z\": 1e3,\n  \"a\": [\n    1\n  ]\n}\n"},
		{"json without content_json", &contract.FinalReport{Format: "json", Status: "success"}, ""},
		{"slack", &contract.FinalReport{Format: "slack-block-kit", Messages: []json.RawMessage{json.RawMessage(`{"blocks":[]}`)}}, "[\n  {\n    \"blocks\": []\n  }\n]\n"},
		{"synthetic json", &contract.FinalReport{Format: "json", Status: "failure", Content: s("Session completed without a final report after 1 turn.")},
			"Session completed without a final report after 1 turn.\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(tc.rep); got != tc.want {
				t.Fatalf("render = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPromptVariables(t *testing.T) {
	t.Setenv("TZ", "Europe/Athens")
	v := newPromptVars("/srv/project", "json", 7, 3)
	got := v.expand("${TIMEZONE} {{CD}} ${MAX_TURNS}/${MAX_TOOLS} ${FORMAT} ${UNKNOWN} {{HOME}} ${OS}")
	want := "Europe/Athens /srv/project 7/3 json ${UNKNOWN} {{HOME}} " + runtime.GOOS
	if got != want {
		t.Fatalf("expand = %q, want %q", got, want)
	}
	for _, k := range []string{"DATETIME", "TIMESTAMP", "DAY", "ARCH", "KERNEL", "HOSTNAME", "USER"} {
		if _, ok := v[k]; !ok {
			t.Fatalf("variable %s missing", k)
		}
	}
}

func TestVerboseWarnsAboutIgnoredSections(t *testing.T) {
	e := newEnv(t, `{"providers":{"p":{"type":"openai-compatible","baseUrl":"http://x"}},"notASection":{},"slack":{}}`)
	code, _, stderr := e.run(t, "", "--verbose", "--models", "p/m", "s", "u")
	if code != exitOK || !strings.Contains(stderr, "section=notASection") || !strings.Contains(stderr, "section=slack") {
		t.Fatalf("code %d stderr:\n%s", code, stderr)
	}
	_, _, stderr = e.run(t, "", "--models", "p/m", "s", "u")
	if strings.Contains(stderr, "section=notASection") {
		t.Fatalf("warned without --verbose")
	}
}

// TestRealProviderFactories runs --dry-run with the default provider table
// (internal/llm/providers), so each provider type's configuration reaches the real
// constructor and its errors land in the right exit-code category.
func TestRealProviderFactories(t *testing.T) {
	cases := []struct {
		name, provider string
		want           int
	}{
		{"openai chat", `{"type":"openai","apiKey":"k"}`, exitOK},
		{"openai responses", `{"type":"openai","apiKey":"k","openaiMode":"responses"}`, exitOK},
		{"openai bad mode", `{"type":"openai","apiKey":"k","openaiMode":"batch"}`, exitConfig},
		{"anthropic", `{"type":"anthropic","apiKey":"k"}`, exitOK},
		{"ollama", `{"type":"ollama"}`, exitOK},
		{"compatible without baseUrl", `{"type":"openai-compatible"}`, exitConfig},
		{"google", `{"type":"google","apiKey":"k"}`, exitOK},
		{"test-llm without scenario", `{"type":"test-llm"}`, exitInit},
		{"test-llm missing scenario file", `{"type":"test-llm","scenarioFile":"nope.json"}`, exitInit},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			newEnv(t, `{"providers":{"p":`+tc.provider+`}}`)
			var out, errOut bytes.Buffer
			code := runWith(context.Background(), defaultDeps(), []string{"--dry-run", "--models", "p/m", "sys", "user"},
				strings.NewReader(""), &out, &errOut)
			if code != tc.want {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.want, errOut.String())
			}
		})
	}
}
