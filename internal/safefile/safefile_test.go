// The tests here make FIFOs, which Windows has not.

//go:build unix

package safefile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "main.go")
	if err := os.WriteFile(reg, []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, bytes.Repeat([]byte("x"), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(reg, link); err != nil {
		t.Fatal(err)
	}
	fifoLink := filepath.Join(dir, "fifolink")
	if err := os.Symlink(fifo, fifoLink); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		path     string
		max      int64
		noFollow bool
		want     string
		err      error
		errText  string
	}{
		{name: "regular", path: reg, max: 100, want: "package main\n"},
		{name: "exactly the limit", path: big, max: 100, want: strings.Repeat("x", 100)},
		{name: "over the limit", path: big, max: 99, err: ErrTooLarge},
		{name: "fifo", path: fifo, max: 100, err: ErrNotRegular, errText: "FIFO"},
		{name: "symlink to a fifo", path: fifoLink, max: 100, err: ErrNotRegular},
		{name: "directory", path: dir, max: 100, err: ErrNotRegular, errText: "directory"},
		{name: "char device", path: "/dev/zero", max: 100, err: ErrNotRegular, errText: "character device"},
		{name: "symlink followed", path: link, max: 100, want: "package main\n"},
		{name: "symlink refused", path: link, max: 100, noFollow: true, err: ErrNotRegular, errText: "symlink"},
		{name: "missing", path: filepath.Join(dir, "nope"), max: 100, err: os.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan struct{})
			var got []byte
			var err error
			go func() {
				defer close(done)
				got, err = ReadOpts(tt.path, tt.max, Options{NoFollow: tt.noFollow})
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Read blocked")
			}
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				if !strings.Contains(err.Error(), tt.errText) || !strings.Contains(err.Error(), tt.path) {
					t.Fatalf("err = %q, want it to name %q and %q", err, tt.path, tt.errText)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("Read = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestOpenFDRefusesFIFO exercises the descriptor check alone, as when a
// FIFO replaces a regular file between the Lstat and the open: the open
// must neither block nor accept it.
func TestOpenFDRefusesFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		f, err := openFD(fifo, nil, Options{})
		if f != nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Fatalf("openFD(fifo) = %v, want ErrNotRegular", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("openFD blocked on a FIFO")
	}
}

func TestLimitReader(t *testing.T) {
	for _, tt := range []struct {
		in  int
		max int64
		err bool
	}{{10, 10, false}, {11, 10, true}, {0, 0, false}, {1, 0, true}, {1 << 20, 1 << 16, true}} {
		got, err := io.ReadAll(LimitReader(bytes.NewReader(make([]byte, tt.in)), tt.max))
		if tt.err != errors.Is(err, ErrTooLarge) {
			t.Errorf("in %d max %d: err = %v", tt.in, tt.max, err)
		}
		if int64(len(got)) > tt.max {
			t.Errorf("in %d max %d: read %d bytes", tt.in, tt.max, len(got))
		}
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "a.go")
	if err := os.WriteFile(reg, []byte("a much longer old content\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(reg, []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(reg); string(b) != "new\n" {
		t.Fatalf("content = %q", b)
	}
	if st, _ := os.Stat(reg); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode changed to %v", st.Mode())
	}
	created := filepath.Join(dir, "b.go")
	if err := WriteFile(created, []byte("b\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- WriteFile(fifo, []byte("x"), 0o644) }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Fatalf("WriteFile(fifo) = %v, want ErrNotRegular", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("WriteFile blocked on a FIFO")
	}
	if err := WriteFile(dir, []byte("x"), 0o644); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("WriteFile(dir) = %v", err)
	}
}

func TestReadPrefix(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "f")
	if err := os.WriteFile(reg, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(reg, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		max    int64
		o      Options
		want   string
		notReg bool
	}{
		{reg, 4, Options{}, "0123", false},
		{reg, 10, Options{}, "0123456789", false},
		{reg, 100, Options{}, "0123456789", false},
		{reg, 0, Options{}, "", false},
		{link, 3, Options{}, "012", false},
		{link, 3, Options{NoFollow: true}, "", true},
		{fifo, 3, Options{}, "", true},
		{dir, 3, Options{}, "", true},
	}
	for _, tt := range tests {
		done := make(chan struct{})
		go func() {
			defer close(done)
			got, err := ReadPrefix(tt.name, tt.max, tt.o)
			switch {
			case tt.notReg && !errors.Is(err, ErrNotRegular):
				t.Errorf("ReadPrefix(%s, %d, %+v) = %q, %v; want ErrNotRegular", filepath.Base(tt.name), tt.max, tt.o, got, err)
			case !tt.notReg && (err != nil || string(got) != tt.want):
				t.Errorf("ReadPrefix(%s, %d, %+v) = %q, %v; want %q", filepath.Base(tt.name), tt.max, tt.o, got, err, tt.want)
			}
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("ReadPrefix(%s) blocked", tt.name)
		}
	}
}
