package config

import (
	"testing"
	"time"
)

func TestParseCacheTTL(t *testing.T) {
	cases := []struct {
		in   any
		want time.Duration
		set  bool
		err  bool
	}{
		{in: nil},
		{in: ""},
		{in: "off", set: true},
		{in: "OFF", set: true},
		{in: "1500", want: 1500 * time.Millisecond, set: true},
		{in: "1.9", want: time.Millisecond, set: true},
		{in: 250, want: 250 * time.Millisecond, set: true},
		{in: 2.7, want: 2 * time.Millisecond, set: true},
		{in: "5m", want: 5 * time.Minute, set: true},
		{in: "1.5h", want: 90 * time.Minute, set: true},
		{in: "2D", want: 48 * time.Hour, set: true},
		{in: "1w", want: 7 * 24 * time.Hour, set: true},
		{in: "1mo", want: 30 * 24 * time.Hour, set: true},
		{in: "1y", want: 365 * 24 * time.Hour, set: true},
		{in: "10ms", want: 10 * time.Millisecond, set: true},
		{in: "999999999y", want: time.Duration(1<<63 - 1), set: true},
		{in: "5 m", err: true},
		{in: "-1", err: true},
		{in: -1, err: true},
		{in: "5x", err: true},
		{in: true, err: true},
	}
	for _, tc := range cases {
		got, set, err := ParseCacheTTL("cache", tc.in)
		if (err != nil) != tc.err || got != tc.want || set != tc.set {
			t.Errorf("ParseCacheTTL(%#v) = %s, %v, %v; want %s, %v, error %v", tc.in, got, set, err, tc.want, tc.set, tc.err)
		}
	}
}

func FuzzParseCacheTTL(f *testing.F) {
	for _, s := range []string{"off", "5m", "1.5h", "12", "1e9y", "9999999999999999999999mo"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, _, err := ParseCacheTTL("cache", s)
		if err == nil && d < 0 {
			t.Fatalf("%q: negative ttl %s", s, d)
		}
	})
}
