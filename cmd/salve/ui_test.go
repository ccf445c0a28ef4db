package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUIRefusesBadStores: salve ui opens the store read-only and says
// clearly when it cannot serve it; it never creates one.
func TestUIRefusesBadStores(t *testing.T) {
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.db")
	if err := os.WriteFile(corrupt, bytes.Repeat([]byte("not a database "), 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.db")
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"ui", "--store", corrupt, "--listen", "127.0.0.1:0"}, exitFailure, "open the run store"},
		{[]string{"ui", "--store", missing, "--listen", "127.0.0.1:0"}, exitBadInput, "open the run store"},
		{[]string{"ui", "--store", missing, "--listen", "0.0.0.0:0"}, exitBadInput, "not a loopback address"},
		{[]string{"ui", "--listen", "nonsense"}, exitBadInput, "--listen"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), tc.args, strings.NewReader(""), &out, &errb)
		if code != tc.code || !strings.Contains(errb.String(), tc.err) {
			t.Errorf("%v: exit %d, stderr %q; want %d with %q", tc.args, code, errb.String(), tc.code, tc.err)
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("salve ui created a store")
	}
}
