package lang

import "testing"

func TestPrivateFunc(t *testing.T) {
	for _, tc := range []struct{ path, line, want string }{
		{"a.go", "func sum(a, b int) int {", "sum"},
		{"a.go", "func Sum(a, b int) int {", ""},
		{"a.go", "func (c *Calc) sum() int {", ""},
		{"a.py", "def _rate(net):", "_rate"},
		{"a.py", "def rate(net):", "rate"},
		{"a.py", "    def rate(self):", ""},
		{"a.py", "    def _rate(self):", "_rate"},
		{"a.js", "function clamp(x) {", "clamp"},
		{"a.js", "export function clamp(x) {", ""},
		{"a.c", "static int clamp(int x)", "clamp"},
		{"a.c", "int clamp(int x)", ""},
		{"a.rs", "fn clamp(x: i32) -> i32 {", "clamp"},
		{"a.rs", "pub fn clamp(x: i32) -> i32 {", ""},
		{"A.java", "    private static int clamp(int x) {", "clamp"},
		{"A.java", "    public static int clamp(int x) {", ""},
		{"a.txt", "func sum() {", ""},
	} {
		if got := Of(tc.path).PrivateFunc(tc.line); got != tc.want {
			t.Errorf("%s %q: got %q, want %q", tc.path, tc.line, got, tc.want)
		}
	}
}
