package upload_test

import (
	"testing"

	"example.com/upload"
)

func TestMaxFileSize(t *testing.T) {
	if upload.MaxFileSize != 10<<20 {
		t.Errorf("MaxFileSize = %d, want 10 MiB (%d)", upload.MaxFileSize, 10<<20)
	}
}

func TestAllowedRejectsEmpty(t *testing.T) {
	if upload.Allowed(0) {
		t.Error("an empty file was allowed")
	}
}
