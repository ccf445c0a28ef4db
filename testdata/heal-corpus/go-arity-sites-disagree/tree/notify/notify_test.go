package notify

import "testing"

func TestFormat(t *testing.T) {
	got := Format(Alert{Name: "DiskFull", Severity: "critical", Labels: map[string]string{"instance": "db1"}}, nil)
	if got != "[CRITICAL] DiskFull" {
		t.Errorf("Format = %q", got)
	}
}

func TestDigest(t *testing.T) {
	got := Digest([]Alert{{Name: "A", Severity: "warn"}, {Name: "B", Severity: "info"}})
	if got != "[WARN] A\n[INFO] B" {
		t.Errorf("Digest = %q", got)
	}
}
