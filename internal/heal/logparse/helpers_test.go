package logparse

import (
	"os"
	"path/filepath"
)

func mkdirAll(file string) error { return os.MkdirAll(filepath.Dir(file), 0o755) }

func writeBytes(file, body string) error { return os.WriteFile(file, []byte(body), 0o644) }
