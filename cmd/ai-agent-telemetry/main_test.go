package main

import (
	"context"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	cases := []struct {
		name, in, out, stderr string
		code                  int
	}{
		{"metrics only, input ends", `{"mode":"cli"}` + "\n" + `{"op":"turn","id":1,"turn":1}` + "\n" + `{"op":"end","id":1}` + "\n", `{}`, "", 0},
		{"no settings", "", "", "no settings line", 1},
		{"bad settings", "nope\n", `"error"`, "bad settings line", 1},
		{"bad protocol", `{"traces":true,"protocol":"carrier-pigeon"}` + "\n", "unknown OTLP protocol", "unknown OTLP protocol", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, stderr strings.Builder
			code := run(context.Background(), strings.NewReader(tc.in), &out, &stderr)
			if code != tc.code || !strings.Contains(out.String(), tc.out) || !strings.Contains(stderr.String(), tc.stderr) {
				t.Fatalf("code %d, stdout %q, stderr %q", code, out.String(), stderr.String())
			}
		})
	}
}
