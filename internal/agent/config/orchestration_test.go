package config

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/agent"
)

// TestFrontmatterOrchestration: advisors, router and handoff are read as
// the original reads them, relative to the agent file; bad shapes are
// exit 4 naming the key.
func TestFrontmatterOrchestration(t *testing.T) {
	dir := filepath.Join("agents", "desk")
	in := func(p string) string { return filepath.Join(dir, p) }
	cases := []struct {
		name, yaml string
		want       Orchestration
		err        string
	}{
		{name: "advisors list", yaml: "advisors:\n  - ./a.ai\n  - /abs/b.ai", want: Orchestration{Advisors: []string{in("a.ai"), "/abs/b.ai"}}},
		{name: "advisors string", yaml: "advisors: a.ai, b.ai", want: Orchestration{Advisors: []string{in("a.ai"), in("b.ai")}}},
		{name: "router", yaml: "router:\n  destinations: [./x.ai, y.ai]", want: Orchestration{Destinations: []string{in("x.ai"), in("y.ai")}}},
		{name: "router one string", yaml: "router: {destinations: ./x.ai}", want: Orchestration{Destinations: []string{in("x.ai")}}},
		{name: "handoff", yaml: "handoff: ./fmt.ai", want: Orchestration{Handoff: in("fmt.ai")}},
		{name: "all three", yaml: "advisors: [a.ai]\nrouter: {destinations: [x.ai]}\nhandoff: h.ai",
			want: Orchestration{Advisors: []string{in("a.ai")}, Destinations: []string{in("x.ai")}, Handoff: in("h.ai")}},
		{name: "handoff list", yaml: "handoff: [a.ai, b.ai]", err: "handoff must be a single string"},
		{name: "router without destinations", yaml: "router: {destinations: []}", err: "router.destinations must include at least one agent"},
		{name: "router not a mapping", yaml: "router: [x.ai]", err: "router must be a mapping"},
		{name: "router unknown key", yaml: "router: {destinations: [x.ai], strategy: round_robin}", err: "unknown key router.strategy"},
		{name: "advisors not strings", yaml: "advisors: [1, 2]", err: "advisors must be a list of strings"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fm, err := ParseFrontmatter(tc.yaml, dir)
			if tc.err != "" {
				if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want ErrConfig with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(fm.Orchestration, tc.want) {
				t.Fatalf("got %+v, want %+v", fm.Orchestration, tc.want)
			}
			if len(fm.Warnings) != 0 {
				t.Fatalf("warnings %q: the keys are honoured", fm.Warnings)
			}
		})
	}
}

// TestResolveOrchestration: --advisors and --handoff beat the
// frontmatter for the agent the command runs, never for a child; a
// child with ChildFormat answers in it unless it names its own output.
func TestResolveOrchestration(t *testing.T) {
	cfg := &Config{tree: map[string]any{}}
	fm := &Frontmatter{Settings: map[string]any{}, Models: []string{"p/m"},
		Orchestration: Orchestration{Advisors: []string{"fm-a.ai"}, Destinations: []string{"d.ai"}, Handoff: "fm-h.ai"}}
	flags := CLI{Lists: map[string][]string{"advisors": {"cli-a.ai", " "}}, Flags: map[string]string{"handoff": "cli-h.ai"}}
	schema := []byte(`{"type":"object","required":["x"]}`)
	cases := []struct {
		name       string
		req        Request
		want       Orchestration
		format     string
		wantSchema string
	}{
		{name: "the command's agent", req: Request{CLI: flags},
			want: Orchestration{Advisors: []string{"cli-a.ai"}, Destinations: []string{"d.ai"}, Handoff: "cli-h.ai"}, format: agent.FormatPipe},
		{name: "no flags", req: Request{}, want: fm.Orchestration, format: agent.FormatPipe},
		{name: "a child keeps its own", req: Request{CLI: flags, SubAgent: true}, want: fm.Orchestration, format: agent.FormatSubAgent},
		{name: "an advisor answers in markdown", req: Request{SubAgent: true, ChildFormat: agent.FormatMarkdown}, want: fm.Orchestration,
			format: agent.FormatMarkdown},
		{name: "a handoff answers in the session's json", req: Request{SubAgent: true, ChildFormat: agent.FormatJSON, ChildSchema: schema},
			want: fm.Orchestration, format: agent.FormatJSON, wantSchema: string(schema)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Config, tc.req.Frontmatter = cfg, fm
			s, err := Resolve(tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(s.Orchestration, tc.want) {
				t.Errorf("orchestration %+v, want %+v", s.Orchestration, tc.want)
			}
			if s.Format != tc.format || string(s.Schema) != tc.wantSchema {
				t.Errorf("format %s schema %s, want %s %s", s.Format, s.Schema, tc.format, tc.wantSchema)
			}
		})
	}
	own := &Frontmatter{Settings: map[string]any{}, Models: []string{"p/m"}, Output: &IOSpec{Format: "text"}}
	s, err := Resolve(Request{Config: cfg, Frontmatter: own, SubAgent: true, ChildFormat: agent.FormatJSON})
	if err != nil || s.Format != agent.FormatPipe {
		t.Fatalf("a child with output.format text answers in %s (%v), want pipe", s.Format, err)
	}
}
