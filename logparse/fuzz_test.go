package logparse

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that no input makes the parser panic, and that its
// output always keeps the contract: valid types, lines >= 1, repo-relative
// forward-slash paths, confidences in [0, 1], no duplicates, and the same
// bytes on a second parse.
func FuzzParse(f *testing.F) {
	logs, _ := filepath.Glob(filepath.Join(corpusDir, "*", "*", "log.txt"))
	for i, p := range logs {
		if i%3 != 0 {
			continue
		}
		b, err := os.ReadFile(p)
		if err == nil {
			if len(b) > 4096 {
				b = b[:4096]
			}
			f.Add(string(b), "")
		}
	}
	f.Add("Traceback (most recent call last):\n  File \"/ws/a.py\", line 0\nValueError\n", "/ws")
	f.Add("error[E0308]: x\n --> src/a.rs:0:0\n\n", "")
	f.Add("panic: x\n\ngoroutine 1 [running]:\nmain.f()\n\t/ws/m.go:-1 +0x1\n", "/ws")
	f.Add("\x1b[\x1b]\r\r\n#1 0.1 \n::error file=,line=99999999999999999999::\n", "")
	f.Fuzz(func(t *testing.T, log, root string) {
		opts := Options{Root: root}
		a := ParseString(log, opts)
		checkValid(t, a)
		b := ParseString(log, opts)
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Fatalf("two parses differ:\n%s\n%s", ja, jb)
		}
	})
}
