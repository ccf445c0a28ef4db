package server

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const rid = "f5e93cc3-5d6f-4e9e-88a2-2f10e1bf7a21"

// request builds an ActionRequest document around a payload (raw JSON).
func request(action, payload string) string {
	return fmt.Sprintf(`{"request_id":%q,"api_version":null,"tool":"git_agent","action":%q,"context":"",`+
		`"plan_id":"plan-1","task_id":"task-1","correlation_id":"corr-1","payload":%s}`, rid, action, payload)
}

func u32(n uint32) *uint32 { return &n }
func str(s string) *string { return &s }

func TestDecodeValid(t *testing.T) {
	type cmd = contract.GitAgentCommandV1
	for _, tc := range []struct {
		name    string
		action  string
		payload string
		shape   string
		want    cmd
	}{
		{"status canonical", "git_status", `{"command":{"type":"git_status"}}`, ShapeCanonical, cmd{Type: "git_status"}},
		{"status legacy empty", "git_status", `{}`, ShapeLegacy, cmd{Type: "git_status"}},
		{"status legacy null", "git_status", `null`, ShapeLegacy, cmd{Type: "git_status"}},
		{"diff canonical", "git_diff", `{"command":{"type":"git_diff","files":["a.txt"]}}`, ShapeCanonical, cmd{Type: "git_diff", Files: []string{"a.txt"}}},
		{"diff legacy", "git_diff", `{"files":["src/main.rs","Cargo.toml"]}`, ShapeLegacy, cmd{Type: "git_diff", Files: []string{"src/main.rs", "Cargo.toml"}}},
		{"diff legacy no files", "git_diff", `{}`, ShapeLegacy, cmd{Type: "git_diff"}},
		{"log canonical", "git_log", `{"command":{"type":"git_log","limit":20}}`, ShapeCanonical, cmd{Type: "git_log", Limit: u32(20)}},
		{"log canonical default", "git_log", `{"command":{"type":"git_log"}}`, ShapeCanonical, cmd{Type: "git_log", Limit: u32(10)}},
		{"log legacy string", "git_log", `{"limit":"20"}`, ShapeLegacy, cmd{Type: "git_log", Limit: u32(20)}},
		{"log legacy number", "git_log", `{"limit":20}`, ShapeLegacy, cmd{Type: "git_log", Limit: u32(20)}},
		{"log legacy default", "git_log", `{}`, ShapeLegacy, cmd{Type: "git_log", Limit: u32(10)}},
		{"log max", "git_log", `{"limit":4294967295}`, ShapeLegacy, cmd{Type: "git_log", Limit: u32(4294967295)}},
		{"add canonical", "git_add", `{"command":{"type":"git_add","files":["a","b"]}}`, ShapeCanonical, cmd{Type: "git_add", Files: []string{"a", "b"}}},
		{"add legacy", "git_add", `{"files":["src/main.rs","README.md"]}`, ShapeLegacy, cmd{Type: "git_add", Files: []string{"src/main.rs", "README.md"}}},
		{"commit canonical", "git_commit", `{"command":{"type":"git_commit","message":"feat: x"}}`, ShapeCanonical, cmd{Type: "git_commit", Message: str("feat: x")}},
		{"commit legacy", "git_commit", `{"message":"feat: add new planner"}`, ShapeLegacy, cmd{Type: "git_commit", Message: str("feat: add new planner")}},
		{"branch create", "git_branch", `{"command":{"type":"git_branch","branch":"fix/x","start_point":"HEAD~1","create":true}}`, ShapeCanonical,
			cmd{Type: "git_branch", Branch: "fix/x", StartPoint: "HEAD~1", Create: true}},
		{"branch switch legacy", "git_branch", `{"branch":"main"}`, ShapeLegacy, cmd{Type: "git_branch", Branch: "main"}},
		{"restore", "git_restore", `{"command":{"type":"git_restore","files":["a.txt"]}}`, ShapeCanonical, cmd{Type: "git_restore", Files: []string{"a.txt"}}},
		{"push defaults", "git_push", `{"command":{"type":"git_push"}}`, ShapeCanonical, cmd{Type: "git_push", Remote: "origin"}},
		{"push legacy", "git_push", `{"remote":"../up.git","branch":"salve/fix-1"}`, ShapeLegacy, cmd{Type: "git_push", Remote: "../up.git", Branch: "salve/fix-1"}},
		{"rev_parse default", "git_rev_parse", `{"command":{"type":"git_rev_parse"}}`, ShapeCanonical, cmd{Type: "git_rev_parse", Ref: "HEAD"}},
		{"rev_parse branch", "git_rev_parse", `{"ref":"branch"}`, ShapeLegacy, cmd{Type: "git_rev_parse", Ref: "branch"}},
		{"unknown payload fields ignored", "git_status", `{"verbose":true,"files":7}`, ShapeLegacy, cmd{Type: "git_status"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, rerr := Decode([]byte(request(tc.action, tc.payload)))
			if rerr != nil {
				t.Fatalf("Decode: %v", rerr)
			}
			if req.Action != tc.action || req.Shape != tc.shape {
				t.Errorf("action %q shape %q, want %q %q", req.Action, req.Shape, tc.action, tc.shape)
			}
			if !reflect.DeepEqual(req.Command, tc.want) {
				t.Errorf("command\n got %+v\nwant %+v", req.Command, tc.want)
			}
			if req.RequestID != rid || *req.PlanID != "plan-1" || *req.TaskID != "task-1" || *req.CorrelationID != "corr-1" {
				t.Errorf("trace not read: %+v", req.Trace)
			}
		})
	}
}

func TestDecodeAPIVersion(t *testing.T) {
	for _, v := range []string{`"V1"`, `"v1"`} {
		doc := strings.Replace(request("git_status", "{}"), `"api_version":null`, `"api_version":`+v, 1)
		req, rerr := Decode([]byte(doc))
		if rerr != nil {
			t.Fatalf("api_version %s: %v", v, rerr)
		}
		if req.APIVersion == nil || *req.APIVersion != contract.APIVersionV1 {
			t.Errorf("api_version %s decoded as %v", v, req.APIVersion)
		}
	}
}

// badRequest is one input that must be refused.
type badRequest struct {
	name string
	in   string
	kind string
	// echo is the request_id the response must carry.
	echo string
}

func badRequests() []badRequest {
	withField := func(field, value string) string {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(request("git_status", "{}")), &m); err != nil {
			panic(err)
		}
		m[field] = json.RawMessage(value)
		b, _ := json.Marshal(m)
		return string(b)
	}
	return []badRequest{
		{"empty stdin", "", KindInvalidRequest, ""},
		{"only whitespace", " \n\t ", KindInvalidRequest, ""},
		{"invalid JSON", `{"request_id":"` + rid + `", "tool": git_agent}`, KindInvalidRequest, rid},
		{"truncated JSON", request("git_log", `{"limit":20}`)[:90], KindInvalidRequest, rid},
		{"two documents", request("git_status", "{}") + "\n" + request("git_status", "{}"), KindInvalidRequest, rid},
		{"trailing garbage", request("git_status", "{}") + " ]", KindInvalidRequest, rid},
		{"array", `[` + request("git_status", "{}") + `]`, KindInvalidRequest, ""},
		{"string", `"git_status"`, KindInvalidRequest, ""},
		{"null", `null`, KindInvalidRequest, ""},
		{"unknown action", request("git_rebase", "{}"), KindUnsupportedAction, rid},
		{"action missing", withField("action", "null"), KindInvalidRequest, rid},
		{"wrong tool", withField("tool", `"aider"`), KindWrongTool, rid},
		{"tool missing", withField("tool", `null`), KindWrongTool, rid},
		{"request_id missing", withField("request_id", `null`), KindInvalidRequest, ""},
		{"request_id number", withField("request_id", `42`), KindInvalidRequest, ""},
		{"request_id empty", withField("request_id", `""`), KindInvalidRequest, ""},
		{"plan_id number", withField("plan_id", `7`), KindInvalidRequest, rid},
		{"api_version unknown", withField("api_version", `"V2"`), KindInvalidRequest, rid},
		{"api_version object", withField("api_version", `{}`), KindInvalidRequest, rid},
		{"context number", withField("context", `1`), KindInvalidRequest, rid},
		{"action number", withField("action", `1`), KindInvalidRequest, rid},
		{"payload string", request("git_status", `"status"`), KindInvalidRequest, rid},
		{"payload array", request("git_status", `[]`), KindInvalidRequest, rid},
		{"command not object", request("git_status", `{"command":"git_status"}`), KindInvalidRequest, rid},
		{"command type missing", request("git_log", `{"command":{"limit":1}}`), KindInvalidRequest, rid},
		{"command type number", request("git_log", `{"command":{"type":1}}`), KindInvalidRequest, rid},
		{"command type mismatch", request("git_log", `{"command":{"type":"git_status"}}`), KindInvalidRequest, rid},
		{"files string", request("git_add", `{"files":"a.txt"}`), KindInvalidRequest, rid},
		{"files element number", request("git_add", `{"files":["a.txt",1]}`), KindInvalidRequest, rid},
		{"add empty files", request("git_add", `{"files":[]}`), KindInvalidRequest, rid},
		{"add no files", request("git_add", `{}`), KindInvalidRequest, rid},
		{"add canonical empty files", request("git_add", `{"command":{"type":"git_add","files":[]}}`), KindInvalidRequest, rid},
		{"limit not a number", request("git_log", `{"limit":"twenty"}`), KindInvalidRequest, rid},
		{"limit negative", request("git_log", `{"limit":-1}`), KindInvalidRequest, rid},
		{"limit fraction", request("git_log", `{"limit":1.5}`), KindInvalidRequest, rid},
		{"limit too big", request("git_log", `{"limit":4294967296}`), KindInvalidRequest, rid},
		{"limit bool", request("git_log", `{"limit":true}`), KindInvalidRequest, rid},
		{"limit string in canonical", request("git_log", `{"command":{"type":"git_log","limit":"20"}}`), KindInvalidRequest, rid},
		{"commit message missing", request("git_commit", `{}`), KindInvalidRequest, rid},
		{"commit message empty", request("git_commit", `{"message":"  \n"}`), KindInvalidRequest, rid},
		{"commit message number", request("git_commit", `{"message":5}`), KindInvalidRequest, rid},
		{"branch missing", request("git_branch", `{"command":{"type":"git_branch","create":true}}`), KindInvalidRequest, rid},
		{"branch option", request("git_branch", `{"branch":"-D"}`), KindInvalidRequest, rid},
		{"branch dotdot", request("git_branch", `{"branch":"a..b"}`), KindInvalidRequest, rid},
		{"branch lock", request("git_branch", `{"branch":"x.lock"}`), KindInvalidRequest, rid},
		{"branch create not bool", request("git_branch", `{"branch":"x","create":"yes"}`), KindInvalidRequest, rid},
		{"start_point option", request("git_branch", `{"branch":"x","create":true,"start_point":"--orphan"}`), KindInvalidRequest, rid},
		{"restore no files", request("git_restore", `{"command":{"type":"git_restore"}}`), KindInvalidRequest, rid},
		{"push forced refspec", request("git_push", `{"branch":"+main"}`), KindInvalidRequest, rid},
		{"push refspec", request("git_push", `{"branch":"main:refs/heads/other"}`), KindInvalidRequest, rid},
		{"push remote option", request("git_push", `{"remote":"--upload-pack=touch x"}`), KindInvalidRequest, rid},
		{"rev_parse option", request("git_rev_parse", `{"ref":"--all"}`), KindInvalidRequest, rid},
		{"rev_parse space", request("git_rev_parse", `{"ref":"HEAD main"}`), KindInvalidRequest, rid},
		{"over 16 MiB", `{"request_id":"` + rid + `","payload":"` + strings.Repeat("x", MaxRequestBytes) + `"}`, KindInvalidRequest, rid},
	}
}

// TestDecodeRefuses checks every bad input gives its kind and echoes the
// request_id it could read; the full responses are pinned in
// testdata/bad_requests.golden (rewrite with -update).
func TestDecodeRefuses(t *testing.T) {
	var golden bytes.Buffer
	for _, tc := range badRequests() {
		t.Run(tc.name, func(t *testing.T) {
			req, rerr := Decode([]byte(tc.in))
			if rerr == nil {
				t.Fatalf("Decode accepted it: %+v", req)
			}
			if rerr.Kind != tc.kind {
				t.Errorf("kind %q, want %q (%s)", rerr.Kind, tc.kind, rerr.Msg)
			}
			if rerr.Trace.RequestID != tc.echo {
				t.Errorf("echoed request_id %q, want %q", rerr.Trace.RequestID, tc.echo)
			}
			resp := ErrorResponse(rerr.Trace, rerr.Kind, rerr.Msg)
			var line bytes.Buffer
			if err := WriteResponse(&line, resp); err != nil {
				t.Fatal(err)
			}
			if err := validateResponse(line.Bytes()); err != nil {
				t.Errorf("error response does not validate: %v", err)
			}
			fmt.Fprintf(&golden, "# %s\n%s", tc.name, line.String())
		})
	}
	compareGolden(t, "bad_requests.golden", golden.Bytes())
}

// compareGolden compares got with testdata/name, or rewrites it with -update.
func compareGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run go test -update to create it): %v", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(gl), len(wl)); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Fatalf("%s differs at line %d:\n got: %s\nwant: %s\n(go test -update rewrites it)", path, i+1, g, w)
		}
	}
}

// FuzzDecode feeds arbitrary bytes to the decoder: it must never panic, and
// every outcome must become a response that validates against the
// ActionResponse schema; an accepted request must name a known action whose
// command type matches.
func FuzzDecode(f *testing.F) {
	for _, tc := range badRequests() {
		if len(tc.in) < 4096 {
			f.Add([]byte(tc.in))
		}
	}
	f.Add([]byte(request("git_log", `{"limit":"20"}`)))
	f.Add([]byte(request("git_log", `{"command":{"type":"git_log","limit":20}}`)))
	f.Add([]byte(request("git_add", `{"files":["--output=x","-rf"]}`)))
	f.Add([]byte(request("git_branch", `{"command":{"type":"git_branch","branch":"b","create":true,"start_point":"HEAD"}}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		req, rerr := Decode(data)
		var resp contract.ActionResponse
		switch {
		case rerr != nil && req == nil:
			resp = ErrorResponse(rerr.Trace, rerr.Kind, rerr.Msg)
		case rerr == nil && req != nil:
			if _, ok := actionTable[req.Action]; !ok || req.Command.Type != req.Action {
				t.Fatalf("accepted action %q with command type %q", req.Action, req.Command.Type)
			}
			if req.Action == contract.ActionGitLog && req.Command.Limit == nil {
				t.Fatal("git_log accepted without a limit")
			}
			resp = Respond(req.Trace, textResult("ok", nil))
		default:
			t.Fatalf("Decode returned request %v and error %v", req, rerr)
		}
		var buf bytes.Buffer
		if err := WriteResponse(&buf, resp); err != nil {
			t.Fatal(err)
		}
		if err := validateResponse(buf.Bytes()); err != nil {
			t.Fatalf("invalid response %s: %v", buf.Bytes(), err)
		}
	})
}
