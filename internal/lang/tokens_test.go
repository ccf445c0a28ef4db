package lang

import "testing"

// TestTokensLiterals: the JavaScript and Python tokenizers read their
// string literals, and the code interpolated in them, with the lexer of
// the table's rows: a literal is one token however its interpolations
// nest, and one that does not close, or whose interpolation does not, is
// not read.
func TestTokensLiterals(t *testing.T) {
	for _, tc := range []struct {
		name string
		lex  func(string) (Tokens, bool)
		src  string
		want string // the one string token; "" when the text is not read
	}{
		{"js template", TokensJS, "x = `a ${b} c`", "`a ${b} c`"},
		{"js nested template", TokensJS, "x = `a ${f(`b ${c}`)} d`", "`a ${f(`b ${c}`)} d`"},
		{"js brace in a substitution's string", TokensJS, "x = `a ${\"}\"} b`", "`a ${\"}\"} b`"},
		{"js comment in a substitution", TokensJS, "x = `a ${b /* } */} c`", "`a ${b /* } */} c`"},
		{"js object in a substitution", TokensJS, "x = `a ${{k: 1}.k} c`", "`a ${{k: 1}.k} c`"},
		{"js escaped quote", TokensJS, `x = "a\"b"`, `"a\"b"`},
		{"js unterminated substitution", TokensJS, "x = `a ${b c`", ""},
		{"js unterminated comment in a substitution", TokensJS, "x = `a ${b /* c}`", ""},
		{"js quote across a line", TokensJS, "x = \"a\nb\"", ""},
		{"py f-string", TokensPython, `x = f"{a!r:>{w}}"`, `f"{a!r:>{w}}"`},
		{"py f-string nesting its own quote", TokensPython, `x = f"{d["k"]}"`, `f"{d["k"]}"`},
		{"py doubled braces", TokensPython, `x = f"{{a}}"`, `f"{{a}}"`},
		{"py raw string", TokensPython, `x = r"a\"b"`, `r"a\"b"`},
		{"py raw prefix reads no field", TokensPython, `x = rb"{a"`, `rb"{a"`},
		{"py triple-quoted f-string", TokensPython, "x = f'''a\n{b}'''", "f'''a\n{b}'''"},
		{"py unterminated field", TokensPython, `x = f"{a"`, ""},
		{"py quote across a line", TokensPython, "x = 'a\nb'", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lx, ok := tc.lex(tc.src)
			if tc.want == "" {
				if ok {
					t.Fatalf("read %q, want it refused", tc.src)
				}
				return
			}
			if !ok {
				t.Fatalf("%q not read", tc.src)
			}
			var got []string
			for _, tk := range lx.Toks {
				if tk.Kind == TokStr {
					got = append(got, tk.Text)
				}
			}
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("strings = %q, want [%q]", got, tc.want)
			}
		})
	}
}
