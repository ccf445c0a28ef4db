package lang

import (
	"strings"
	"testing"
)

// rustTokens writes toks one a line as "kind text", with "^" before a
// token a line break precedes.
func rustTokens(toks []Token) string {
	names := map[TokenKind]string{TokWord: "w", TokNum: "n", TokStr: "s", TokOp: "o"}
	var b strings.Builder
	for _, t := range toks {
		if t.NL {
			b.WriteString("^")
		}
		b.WriteString(names[t.Kind] + " " + t.Text + "\n")
	}
	return b.String()
}

func TestTokensRust(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      string // the tokens, as rustTokens writes them
		comments  []string
		ok        bool
	}{
		{"test fn", "#[test]\nfn adds() { assert_eq!(add(1, 2), 3); }",
			"o #\no [\nw test\no ]\n^w fn\nw adds\no (\no )\no {\nw assert_eq\no !\no (\nw add\no (\nn 1\no ,\nn 2\no )\no ,\nn 3\no )\no ;\no }\n", nil, true},
		{"comments nest", "/* a /* b */ c */ x // d\n/// doc\ny", "w x\n^w y\n", []string{"/* a /* b */ c */", "// d", "/// doc"}, true},
		{"strings", `let s = "a\"b"; let r = r#"x"y"#; let b = b"z"; let c = b'q';`,
			"w let\nw s\no =\ns \"a\\\"b\"\no ;\nw let\nw r\no =\ns r#\"x\"y\"#\no ;\nw let\nw b\no =\ns b\"z\"\no ;\nw let\nw c\no =\ns b'q'\no ;\n", nil, true},
		{"chars and lifetimes", `fn f<'a>(x: &'a str) -> char { '\'' }`,
			"w fn\nw f\no <\nw 'a\no >\no (\nw x\no :\no &\nw 'a\nw str\no )\no ->\nw char\no {\ns '\\''\no }\n", nil, true},
		{"numbers and ranges", "for i in 0..n { t.0; 1.5e-3f64; 0xff_u8 }",
			"w for\nw i\nw in\nn 0\no ..\nw n\no {\nw t\no .\nn 0\no ;\nn 1.5e-3f64\no ;\nn 0xff_u8\no }\n", nil, true},
		{"raw identifier", "let r#type = 1;", "w let\nw r#type\no =\nn 1\no ;\n", nil, true},
		{"multi-line string", "\"a\nb\" x", "s \"a\nb\"\nw x\n", nil, true},
		{"unterminated string", `let s = "abc`, "", nil, false},
		{"unterminated comment", "/* a /* b */", "", nil, false},
		{"unbalanced", "fn f() { (]", "", nil, false},
		{"raw string unclosed", `r#"abc"`, "", nil, false},
		{"stray byte", "let x = `y`;", "", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lx, ok := TokensRust(tc.src)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			if got := rustTokens(lx.Toks); got != tc.want {
				t.Errorf("tokens:\n%s\nwant:\n%s", got, tc.want)
			}
			if strings.Join(lx.Comments, "|") != strings.Join(tc.comments, "|") {
				t.Errorf("comments = %q, want %q", lx.Comments, tc.comments)
			}
		})
	}
}

// FuzzTokensRust: the tokenizer never panics, and what it reads it reads
// whole: every byte of the input is a token's, a comment's or a blank.
func FuzzTokensRust(f *testing.F) {
	for _, s := range []string{"#[test]\nfn f() { assert!(x, \"{}\", 1); }", `r##"a"#b"##`, "'a' 'b '\\u{1F600}'", "/* /* */ */", "b'\\''", "0..=9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		lx, ok := TokensRust(src)
		if !ok {
			return
		}
		n := 0
		for _, tk := range lx.Toks {
			n += len(tk.Text)
		}
		for _, c := range lx.Comments {
			n += len(c)
		}
		blanks := 0
		for i := 0; i < len(src); i++ {
			switch src[i] {
			case ' ', '\t', '\n', '\r', '\f', '\v':
				blanks++
			}
		}
		if n > len(src) || n+blanks < len(strings.TrimPrefix(src, "\ufeff")) {
			t.Errorf("%q: tokens and comments cover %d bytes and blanks %d of %d", src, n, blanks, len(src))
		}
	})
}
