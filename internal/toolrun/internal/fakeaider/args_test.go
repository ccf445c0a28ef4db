package fakeaider

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		check   func(a *Args) bool
		wantErr string
	}{
		{"--yes abbreviates --yes-always", []string{"--yes"}, func(a *Args) bool { return a.Flags["yes_always"] }, ""},
		{"exact --yes-always", []string{"--yes-always"}, func(a *Args) bool { return a.Flags["yes_always"] }, ""},
		{"commits on by default", nil, func(a *Args) bool { return a.Flags["auto_commits"] && a.Flags["dirty_commits"] && a.Flags["gitignore"] }, ""},
		{"--no- forms", []string{"--no-auto-commits", "--no-dirty-commits", "--no-gitignore"},
			func(a *Args) bool {
				return !a.Flags["auto_commits"] && !a.Flags["dirty_commits"] && !a.Flags["gitignore"]
			}, ""},
		{"last of a pair wins", []string{"--no-auto-commits", "--auto-commits"}, func(a *Args) bool { return a.Flags["auto_commits"] }, ""},
		{"--model is exact, not --models", []string{"--model", "gpt-4"}, func(a *Args) bool { return a.Values["model"] == "gpt-4" && a.Values["models"] == "" }, ""},
		{"value with =", []string{"--model=sonnet", "--edit-format=whole"}, func(a *Args) bool { return a.Values["model"] == "sonnet" && a.Values["edit_format"] == "whole" }, ""},
		{"--chat-mode alias", []string{"--chat-mode", "ask"}, func(a *Args) bool { return a.Values["edit_format"] == "ask" }, ""},
		{"short -f", []string{"-f", "p.txt"}, func(a *Args) bool { return a.Values["message_file"] == "p.txt" }, ""},
		{"abbreviated --message-f", []string{"--message-f", "p.txt"}, func(a *Args) bool { return a.Values["message_file"] == "p.txt" }, ""},
		{"repeated --read", []string{"--read", "a.md", "--read=b.md"}, func(a *Args) bool { return reflect.DeepEqual(a.Lists["read"], []string{"a.md", "b.md"}) }, ""},
		{"files", []string{"a.py", "--yes", "b.py", "--", "--c.py"}, func(a *Args) bool { return reflect.DeepEqual(a.Files, []string{"a.py", "b.py", "--c.py"}) }, ""},
		{"ambiguous abbreviation", []string{"--mo", "x"}, nil, "ambiguous option: --mo could match"},
		{"unknown flag", []string{"--frobnicate", "--zap"}, nil, "unrecognized arguments: --frobnicate --zap"},
		{"value missing", []string{"--model"}, nil, "expected one argument"},
		{"value is a flag", []string{"--message-file", "--yes"}, nil, "expected one argument"},
		{"bool with value", []string{"--auto-commits=false"}, nil, "ignored explicit argument"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Parse(tc.args)
			if tc.wantErr != "" {
				var ue *UsageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want usage error %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(a) {
				t.Errorf("parsed %+v", a)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add("--yes\x00--model\x00gpt-4\x00a.py")
	f.Add("--no-auto-commits\x00--read=x\x00--\x00-y")
	f.Add("--mo\x00--message-file")
	f.Fuzz(func(t *testing.T, joined string) {
		args := strings.Split(joined, "\x00")
		a, err := Parse(args)
		if err != nil {
			var ue *UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("non-usage error %v", err)
			}
			return
		}
		// Every positional argument is a file, in order.
		n := 0
		for _, f := range a.Files {
			n += len(f)
		}
		if n > len(joined) {
			t.Fatalf("files longer than the input: %q", a.Files)
		}
	})
}
