package rules

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSiblingReadsStayInWorkspace checks that the files the import rules
// read beside the reported one (named by the repository's tree) are never
// read through a symbolic link leading out of the workspace.
func TestSiblingReadsStayInWorkspace(t *testing.T) {
	outside := t.TempDir()
	for name, content := range map[string]string{
		"Leaked.java": "package com.secret;\npublic class Leaked {}\n",
		"leaked.py":   "def leaked():\n    pass\n",
		"leaked.go":   "package app\n\nfunc Leaked() {}\n",
	} {
		if err := os.WriteFile(filepath.Join(outside, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		link string // the link planted in the workspace, to the outside file of the same base name
		leak func(ws string) bool
	}{
		{"Java file of the package", "Leaked.java", func(ws string) bool {
			return javaPackageTypes(ws, "A.java")["Leaked"]
		}},
		{"Java class of the project", "src/Leaked.java", func(ws string) bool {
			return len(javaProjectClasses(ws, "A.java")["Leaked"]) > 0
		}},
		{"Go file of the package", "leaked.go", func(ws string) bool {
			return goPackageNames(ws, "a.go", "app")["Leaked"]
		}},
		{"Python module beside the file", "leaked.py", func(ws string) bool {
			_, ok := pySiblingDefining(ws, "a.py", "leaked")
			return ok
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			p := filepath.Join(ws, filepath.FromSlash(tc.link))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(outside, filepath.Base(p)), p); err != nil {
				t.Fatal(err)
			}
			if tc.leak(ws) {
				t.Errorf("read a file outside the workspace through the link %s", tc.link)
			}
		})
	}
}

// TestSiblingReadsInWorkspace checks that the repository's own files are
// still read.
func TestSiblingReadsInWorkspace(t *testing.T) {
	ws := t.TempDir()
	for name, content := range map[string]string{
		"Own.java": "package app;\npublic class Own {}\n",
		"own.py":   "def own():\n    pass\n",
		"own.go":   "package app\n\nfunc Own() {}\n",
	} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !javaPackageTypes(ws, "A.java")["Own"] {
		t.Error("javaPackageTypes: Own not found")
	}
	if len(javaProjectClasses(ws, "A.java")["Own"]) == 0 {
		t.Error("javaProjectClasses: Own not found")
	}
	if !goPackageNames(ws, "a.go", "app")["Own"] {
		t.Error("goPackageNames: Own not found")
	}
	if _, ok := pySiblingDefining(ws, "a.py", "own"); !ok {
		t.Error("pySiblingDefining: own not found")
	}
}
