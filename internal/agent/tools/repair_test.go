package tools

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestParseArguments(t *testing.T) {
	cases := []struct {
		name     string
		raw      string
		want     string
		repaired bool
		fail     bool
	}{
		{"valid", `{"a":1}`, `{"a":1}`, false, false},
		{"empty", ``, `{}`, false, false},
		{"trailing comma", `{"a":1,}`, `{"a":1}`, true, false},
		{"single quotes", `{'a': 'b'}`, `{"a":"b"}`, true, false},
		{"unquoted keys", `{a: 1}`, `{"a":1}`, true, false},
		{"missing brace", `{"a": "b"`, `{"a":"b"}`, true, false},
		{"code fence", "```json\n{\"a\": 2}\n```", `{"a":2}`, true, false},
		{"fence with prose", "Here you go:\n```json\n{\"a\": 3}\n```\nthanks", `{"a":3}`, true, false},
		{"prose around object", `call with {"path":"x"} please`, `{"path":"x"}`, true, false},
		{"array", `[1,2]`, ``, true, true},
		{"number", `42`, ``, true, true},
		{"string", `"hi"`, ``, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, rep, err := ParseArguments(tc.raw)
			if tc.fail {
				if !errors.Is(err, ErrBadArguments) {
					t.Fatalf("want ErrBadArguments, got %v (%s)", err, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseArguments: %v", err)
			}
			var a, b any
			if err := json.Unmarshal(got, &a); err != nil {
				t.Fatalf("result not JSON: %s", got)
			}
			_ = json.Unmarshal([]byte(tc.want), &b)
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if string(ja) != string(jb) {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
			if rep.Repaired != tc.repaired {
				t.Fatalf("repaired = %v, want %v (steps %v)", rep.Repaired, tc.repaired, rep.Steps)
			}
			if rep.Repaired && len(rep.Steps) == 0 {
				t.Fatalf("repair without steps")
			}
		})
	}
}

func FuzzParseArguments(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{a:1,}`, "```json\n{}\n```", `[`, `{"a":"\u00e9"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, _, err := ParseArguments(raw)
		if err != nil {
			return
		}
		var m map[string]any
		if json.Unmarshal(got, &m) != nil || m == nil {
			t.Fatalf("ParseArguments returned a non-object %q for %q", got, raw)
		}
	})
}
