package bytesize

import "testing"

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want Size
	}{
		{"512", 512},
		{"1.5KiB", 1536},
		{"2 MB", 2000000},
		{"1GiB", 1 << 30},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	if _, err := ParseSize("-1KB"); err == nil {
		t.Error("ParseSize accepted a negative size")
	}
}

func TestString(t *testing.T) {
	for in, want := range map[Size]string{100: "100B", 1536: "1.5KiB", 3 << 20: "3.0MiB"} {
		if got := in.String(); got != want {
			t.Errorf("Size(%d).String() = %q, want %q", int64(in), got, want)
		}
	}
}
