package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

// serve runs a Server over in and returns the parsed response and the log
// records.
func serve(t *testing.T, s *Server, in io.Reader) (*testResponse, []map[string]any) {
	t.Helper()
	var out, logs bytes.Buffer
	s.Log = &logs
	if err := s.Serve(context.Background(), in, &out); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if n := bytes.Count(out.Bytes(), []byte("\n")); n != 1 {
		t.Fatalf("stdout holds %d lines, want exactly one response: %q", n, out.String())
	}
	resp, err := parseResponse(out.Bytes())
	if err != nil {
		t.Fatalf("response: %v\n%s", err, out.String())
	}
	var records []map[string]any
	sc := bufio.NewScanner(&logs)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("log line is not JSON: %q", sc.Text())
		}
		records = append(records, rec)
	}
	return resp, records
}

func findRecord(records []map[string]any, msg string) map[string]any {
	for _, r := range records {
		if r["msg"] == msg {
			return r
		}
	}
	return nil
}

// TestServeTraceOnEveryRecord checks that every log record, registration's
// included, carries the four trace fields, with null for absent ones.
func TestServeTraceOnEveryRecord(t *testing.T) {
	repo := newRepo(t)
	doc := strings.Replace(request("git_status", "{}"), `"task_id":"task-1"`, `"task_id":null`, 1)
	s := &Server{
		Runner:   &Runner{Dir: repo},
		Register: RegisterFunc(filepath.Join(t.TempDir(), "r.db"), ToolRow("test", "/bin/git_agent"), 0),
	}
	resp, records := serve(t, s, strings.NewReader(doc))
	if resp.Status != contract.StatusSuccess || resp.RequestID != rid || *resp.PlanID != "plan-1" || resp.TaskID != nil {
		t.Fatalf("response %+v", resp.ActionResponse)
	}
	for _, msg := range []string{"request", "git command", "registered in tool registry", "response"} {
		if findRecord(records, msg) == nil {
			t.Errorf("no %q record in %v", msg, records)
		}
	}
	for _, rec := range records {
		want := map[string]any{"request_id": rid, "plan_id": "plan-1", "task_id": nil, "correlation_id": "corr-1"}
		for k, v := range want {
			got, ok := rec[k]
			if !ok || got != v {
				t.Errorf("record %q: %s = %v (present %v), want %v", rec["msg"], k, got, ok, v)
			}
		}
	}
}

// TestServeRegistryFailureIsOnlyLogged: a registry that cannot open, or a
// registration that panics, leaves the git action's success untouched.
func TestServeRegistryFailureIsOnlyLogged(t *testing.T) {
	repo := newRepo(t)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, reg := range map[string]func(context.Context, *slog.Logger){
		"unopenable": RegisterFunc(filepath.Join(file, "r.db"), ToolRow("test", "x"), 0),
		"panics":     func(context.Context, *slog.Logger) { panic("registry exploded") },
	} {
		t.Run(name, func(t *testing.T) {
			s := &Server{Runner: &Runner{Dir: repo}, Register: reg}
			resp, records := serve(t, s, strings.NewReader(request("git_status", "{}")))
			if resp.Status != contract.StatusSuccess {
				t.Fatalf("registry failure failed the action: %+v", resp.Result)
			}
			warn := findRecord(records, "registry registration failed")
			if warn == nil {
				warn = findRecord(records, "registry registration panicked")
			}
			if warn == nil || (warn["level"] != "WARN" && warn["level"] != "ERROR") {
				t.Errorf("no registry warning in %v", records)
			}
		})
	}
}

func TestServeBadInput(t *testing.T) {
	big := io.MultiReader(strings.NewReader(`{"request_id":"`+rid+`","tool":"git_agent","payload":"`),
		&repeatReader{b: 'x', n: MaxRequestBytes})
	for _, tc := range []struct {
		name   string
		server Server
		in     io.Reader
		kind   string
		echo   string
	}{
		{"over 16 MiB", Server{}, big, KindInvalidRequest, rid},
		{"read error", Server{}, io.MultiReader(strings.NewReader(`{"request_id":"`+rid+`"`), errReader{}), KindInvalidRequest, rid},
		{"refused invocation", Server{Refuse: "bad flag"}, strings.NewReader(request("git_status", "{}")), KindInvalidInvocation, rid},
		{"refused invocation, invalid JSON", Server{Refuse: "bad flag"}, strings.NewReader("{"), KindInvalidInvocation, ""},
		{"empty", Server{}, strings.NewReader(""), KindInvalidRequest, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, _ := serve(t, &tc.server, tc.in)
			if resp.Status != contract.StatusError || resp.Result.Metadata["error_kind"] != tc.kind || resp.RequestID != tc.echo {
				t.Errorf("response %+v, result %+v", resp.ActionResponse, resp.Result)
			}
		})
	}
}

func TestServeWriteFailure(t *testing.T) {
	s := &Server{}
	err := s.Serve(context.Background(), strings.NewReader(""), errWriter{})
	if err == nil {
		t.Fatal("Serve reported success although the response could not be written")
	}
}

type repeatReader struct {
	b byte
	n int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.n)
	for i := range k {
		p[i] = r.b
	}
	r.n -= k
	return k, nil
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("stdin broke") }

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("stdout closed") }

// TestResponseAPIVersionIsNull pins docs/contracts/git-agent.md §3.1:
// api_version is "currently None" in every response, whatever the request
// sent.
func TestResponseAPIVersionIsNull(t *testing.T) {
	for _, v := range []string{`null`, `"V1"`, `"v1"`} {
		tr := Trace{RequestID: "r"}
		if v != "null" {
			av := contract.APIVersionV1
			tr.APIVersion = &av
		}
		resp := Respond(tr, contract.ActionResult{OutputType: contract.OutputText})
		b, err := json.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"api_version":null`) {
			t.Errorf("request api_version %s: response %s", v, b)
		}
	}
}
