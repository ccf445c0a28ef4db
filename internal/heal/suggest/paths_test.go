package suggest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReadsStayInWorkspace checks that the names the tier reads (files of
// the repository, modules and imports its source names, files a compiler
// reports) never lead it to a file outside the workspace: through a
// symbolic link planted in the repository, or through ".." in an import.
func TestReadsStayInWorkspace(t *testing.T) {
	outside := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "secret.go"), "package app\n\nfunc Leaked() {}\n")
	write(filepath.Join(outside, "Secret.java"), "package app;\nclass Leaked {}\n")
	write(filepath.Join(outside, "lib", "__init__.py"), "def leaked():\n    pass\n")
	write(filepath.Join(outside, "pkg", "x.go"), "package pkg\n\nfunc Leaked() {}\n")
	write(filepath.Join(outside, "report.rs"), "fn leaked() {}\n")

	tests := []struct {
		name  string
		setup func(ws string)
		leak  func(ws string) bool
	}{
		{
			name:  "Go sibling linked out of the tree",
			setup: func(ws string) { link(filepath.Join(outside, "secret.go"), filepath.Join(ws, "b.go")) },
			leak: func(ws string) bool {
				_, _, files := goPackageFiles(ws, "a.go", "package app\n")
				return len(files) > 1
			},
		},
		{
			name:  "Java sibling linked out of the tree",
			setup: func(ws string) { link(filepath.Join(outside, "Secret.java"), filepath.Join(ws, "B.java")) },
			leak: func(ws string) bool {
				names, _ := javaScope(ws, "A.java", "package app;\nclass A {}\n", "class")
				return names["Leaked"]
			},
		},
		{
			name:  "Python module folder linked out of the tree",
			setup: func(ws string) { link(filepath.Join(outside, "lib"), filepath.Join(ws, "lib")) },
			leak: func(ws string) bool {
				return pyModuleNames(ws, "a.py", "lib")["leaked"]
			},
		},
		{
			name:  "Go import with .. out of GOROOT",
			setup: func(string) {},
			leak: func(ws string) bool {
				root := goroot()
				if root == "" {
					t.Skip("no GOROOT sources")
				}
				rel, err := filepath.Rel(root, filepath.Join(outside, "pkg"))
				if err != nil {
					t.Skip(err)
				}
				src := "package app\n\nimport pkg \"a/../" + filepath.ToSlash(rel) + "\"\n"
				return goExported(ws, "a.go", src, "pkg")["Leaked"]
			},
		},
		{
			name:  "compiler-reported file linked out of the tree",
			setup: func(ws string) { link(filepath.Join(outside, "report.rs"), filepath.Join(ws, "src", "lib.rs")) },
			leak: func(ws string) bool {
				return len(hashFiles(ws, []string{"src/lib.rs"})) > 0
			},
		},
		{
			name:  "compiler-reported file in a folder linked out of the tree",
			setup: func(ws string) { link(outside, filepath.Join(ws, "src")) },
			leak: func(ws string) bool {
				return len(hashFiles(ws, []string{"src/report.rs"})) > 0
			},
		},
		{
			name:  "compiler-reported file named with ..",
			setup: func(string) {},
			leak: func(ws string) bool {
				rel, err := filepath.Rel(ws, filepath.Join(outside, "report.rs"))
				if err != nil {
					t.Skip(err)
				}
				return len(hashFiles(ws, []string{filepath.ToSlash(rel)})) > 0
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			tc.setup(ws)
			if tc.leak(ws) {
				t.Errorf("read a file outside the workspace")
			}
		})
	}
}

// TestReadsInWorkspace checks that the same reads still see the
// repository's own files, links inside it included.
func TestReadsInWorkspace(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "b.go"), []byte("package app\n\nfunc Own() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "real", "__init__.py"), []byte("def own():\n    pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(ws, "lib")); err != nil {
		t.Fatal(err)
	}
	if _, _, files := goPackageFiles(ws, "a.go", "package app\n"); len(files) != 2 {
		t.Errorf("goPackageFiles: %d files, want 2", len(files))
	}
	if !pyModuleNames(ws, "a.py", "lib")["own"] {
		t.Errorf("pyModuleNames: the module behind a link inside the tree is not read")
	}
	if h := hashFiles(ws, []string{"b.go", "real/__init__.py"}); len(h) != 2 {
		t.Errorf("hashFiles: %d files hashed, want 2", len(h))
	}
}
