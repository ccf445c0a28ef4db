package main

import (
	"context"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	cases := []struct {
		name, in, out, stderr string
		args                  []string
		code                  int
	}{
		{name: "version", args: []string{"--version"}, out: "ai-agent-telemetry "},
		{name: "help", args: []string{"--help"}, out: "usage: ai-agent-telemetry"},
		{name: "unexpected argument", args: []string{"--metrics"}, stderr: "unexpected arguments", code: 2},
		{name: "metrics only, input ends", in: `{"mode":"cli"}` + "\n" + `{"op":"turn","id":1,"turn":1}` + "\n" + `{"op":"end","id":1}` + "\n", out: `{}`},
		{name: "no settings", stderr: "no settings line", code: 1},
		{name: "bad settings", in: "nope\n", out: `"error"`, stderr: "bad settings line", code: 1},
		{name: "bad protocol", in: `{"traces":true,"protocol":"carrier-pigeon"}` + "\n", out: "unknown OTLP protocol", stderr: "unknown OTLP protocol", code: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, stderr strings.Builder
			code := run(context.Background(), tc.args, strings.NewReader(tc.in), &out, &stderr)
			if code != tc.code || !strings.Contains(out.String(), tc.out) || !strings.Contains(stderr.String(), tc.stderr) {
				t.Fatalf("code %d, stdout %q, stderr %q", code, out.String(), stderr.String())
			}
		})
	}
}
