package lang

import (
	"slices"
	"strings"
	"testing"
)

// TestSpans reads the inputs lexers get wrong: comment markers in
// literals, literals in interpolations, nested comments, raw strings and
// unterminated constructs.
func TestSpans(t *testing.T) {
	for _, tc := range []struct {
		lang, src         string
		strings, comments []string
		interps           []string // the interpolations of the first literal
	}{
		// Comment markers inside literals, literals inside comments.
		{"go", "s := \"/* no */\" // yes", []string{`"/* no */"`}, []string{"// yes"}, nil},
		{"go", "x := `// no\n/* no */` + y", []string{"`// no\n/* no */`"}, nil, nil},
		{"go", "r := '\"' // q \"no\"", []string{`'"'`}, []string{`// q "no"`}, nil},
		{"c", "/* \"no\" */ s = \"\\\"/* no\"; // yes", []string{`"\"/* no"`}, []string{`/* "no" */`, "// yes"}, nil},
		{"javascript", "a = '/* no'; /* yes */ b = \"// no\"", []string{"'/* no'", `"// no"`}, []string{"/* yes */"}, nil},
		{"shell", "echo \"a # no\" a#b # yes", []string{`"a # no"`}, []string{"# yes"}, nil},

		// Unterminated constructs run to their line's end, or the text's.
		{"go", "/* open\nx := 1", nil, []string{"/* open\nx := 1"}, nil},
		{"go", "s := \"open\nx // c", []string{`"open`}, []string{"// c"}, nil},
		{"python", "'''open\n# no", []string{"'''open\n# no"}, nil, nil},
		{"javascript", "x = `open ${y", []string{"`open ${y"}, nil, []string{"y"}},
		{"rust", "/* a /* b */", nil, []string{"/* a /* b */"}, nil},
		{"rust", "let s = r##\"open\"# // no", []string{"r##\"open\"# // no"}, nil, nil},
		{"cpp", "auto s = R\"x(open)\" // no", []string{"R\"x(open)\" // no"}, nil, nil},

		// Nested block comments where the language nests them.
		{"rust", "/* a /* b */ c */ x // y", nil, []string{"/* a /* b */ c */", "// y"}, nil},
		{"kotlin", "/* a /* b */ c */ val x = 1", nil, []string{"/* a /* b */ c */"}, nil},
		{"swift", "/* a /* b */ c */ let x = 1", nil, []string{"/* a /* b */ c */"}, nil},
		{"c", "/* a /* b */ c */", nil, []string{"/* a /* b */"}, nil},

		// Raw strings: no escapes, their own closers.
		{"rust", "let s = r#\"a \"q\" // no\"#; // yes", []string{"r#\"a \"q\" // no\"#"}, []string{"// yes"}, nil},
		{"rust", "let p = r\"C:\\\"; // yes", []string{"r\"C:\\\""}, []string{"// yes"}, nil},
		{"rust", "let b = br\"x\"; let r#type = 1; // c", []string{"br\"x\""}, []string{"// c"}, nil},
		{"rust", "fn f<'a>(x: &'a str) -> char { '\"' } // c", []string{`'"'`}, []string{"// c"}, nil},
		{"cpp", "auto s = R\"x(a )\" // no )x\"; // yes", []string{"R\"x(a )\" // no )x\""}, []string{"// yes"}, nil},
		{"cpp", "auto s = u8R\"(a)\"; auto n = 1'000; // c", []string{"u8R\"(a)\""}, []string{"// c"}, nil},
		{"cpp", "R \"x\" // c", []string{`"x"`}, []string{"// c"}, nil},
		{"csharp", "var p = @\"C:\\\"; // yes", []string{"@\"C:\\\""}, []string{"// yes"}, nil},
		{"java", "String s = \"\"\"\n  // no \"q\"\n  \"\"\"; // yes", []string{"\"\"\"\n  // no \"q\"\n  \"\"\""}, []string{"// yes"}, nil},
		{"java", "char c = '\\u0041'; // c", []string{`'\u0041'`}, []string{"// c"}, nil},
		{"kotlin", "val s = \"\"\"C:\\\"\"\" // c", []string{"\"\"\"C:\\\"\"\""}, []string{"// c"}, nil},

		// Interpolations: code with literals of its own inside a literal.
		{"python", "x = f\"{d[\"k\"]} # no\" # yes", []string{"f\"{d[\"k\"]} # no\""}, []string{"# yes"}, []string{`d["k"]`}},
		{"python", "x = rf'{{no}} {a:>{w}}' # c", []string{"rf'{{no}} {a:>{w}}'"}, []string{"# c"}, []string{"a:>{w}"}},
		{"python", "x = F\"\"\"\n{a}\n\"\"\" # c", []string{"F\"\"\"\n{a}\n\"\"\""}, []string{"# c"}, []string{"a"}},
		{"python", "x = rb'\\x00' + elif'' # c", []string{`'\x00'`, "''"}, []string{"# c"}, nil},
		{"javascript", "a = `x ${`y ${z}`} // no` // yes", []string{"`x ${`y ${z}`} // no`"}, []string{"// yes"}, []string{"`y ${z}`"}},
		{"typescript", "a = `${ {k: '}'}.k /* } */ }` // c", []string{"`${ {k: '}'}.k /* } */ }`"}, []string{"// c"}, []string{" {k: '}'}.k /* } */ "}},
		{"javascript", "a = `\\${no}` // c", []string{"`\\${no}`"}, []string{"// c"}, nil},
		{"kotlin", "val s = \"${m[\"k\"]} // no\" // yes", []string{"\"${m[\"k\"]} // no\""}, []string{"// yes"}, []string{`m["k"]`}},
		{"groovy", "def s = \"${m['k']} // no\" // yes", []string{"\"${m['k']} // no\""}, []string{"// yes"}, []string{"m['k']"}},
		{"scala", "val s = s\"${m(\"k\")} // no\" // yes", []string{"s\"${m(\"k\")} // no\""}, []string{"// yes"}, []string{`m("k")`}},
		{"swift", "let s = \"\\(d[\"k\"]!) // no\" // yes", []string{"\"\\(d[\"k\"]!) // no\""}, []string{"// yes"}, []string{`d["k"]!`}},
		{"ruby", "s = \"#{h[\"k\"]} # no\" # yes", []string{"\"#{h[\"k\"]} # no\""}, []string{"# yes"}, []string{`h["k"]`}},
		{"csharp", "var s = $\"{d[\"k\"]} // no\"; // yes", []string{"$\"{d[\"k\"]} // no\""}, []string{"// yes"}, []string{`d["k"]`}},
	} {
		l := ByName(tc.lang)
		var strs, comms []string
		var first *Span
		spans := l.Spans(tc.src)
		for i, s := range spans {
			text := tc.src[s.Start:s.End]
			if s.Kind == String {
				strs = append(strs, text)
				if first == nil {
					first = &spans[i]
				}
			} else {
				comms = append(comms, text)
			}
		}
		if !slices.Equal(strs, tc.strings) || !slices.Equal(comms, tc.comments) {
			t.Errorf("%s: Spans(%q): strings %q, comments %q; want %q, %q", tc.lang, tc.src, strs, comms, tc.strings, tc.comments)
		}
		var interps []string
		if first != nil {
			for _, in := range l.Interpolations(tc.src, *first) {
				interps = append(interps, tc.src[in.Start:in.End])
			}
		}
		if !slices.Equal(interps, tc.interps) {
			t.Errorf("%s: Interpolations of %q = %q, want %q", tc.lang, tc.src, interps, tc.interps)
		}
	}
}

func TestCode(t *testing.T) {
	for _, tc := range []struct{ lang, src, want string }{
		{"java", "int a; // List b\nint c;", "int a;          \nint c;"},
		{"java", "x /* Map\n y */ z", "x       \n      z"},
		{"java", `s = "a \" List"; c = 'x';`, `s =            ; c =    ;`},
		{"rust", "let s = r#\"{\n}\"#; fn f() {}", "let s =     \n   ; fn f() {}"},
		{"python", "def f(x='#'):  # c\n    return x", "def f(x=   ):     \n    return x"},
		{"go", "x := \"sum\" // sum\ny := sum(1)\n", "x :=             \ny := sum(1)\n"},
		{"go", "no comments", "no comments"},
	} {
		if got := ByName(tc.lang).Code(tc.src); got != tc.want {
			t.Errorf("%s: Code(%q) = %q, want %q", tc.lang, tc.src, got, tc.want)
		}
	}
	if got := (*Language)(nil).Code("a // b"); got != "a // b" {
		t.Errorf("a nil Language changed its text: %q", got)
	}
}

func TestHollowAndSplitLine(t *testing.T) {
	for _, tc := range []struct{ lang, line, hollow, code, comment string }{
		{"python", `if x == "a:(b" :  # c (`, `if x == "    " :  # c (`, `if x == "a:(b" :  `, "# c ("},
		{"python", `s = f"{a}" + 'b\'c'`, `s = f    " + '    '`, `s = f"{a}" + 'b\'c'`, ""},
		{"python", `x = "open (`, `x = "      `, `x = "open (`, ""},
		{"go", "fmt.Println(\"// no\") // yes", "fmt.Println(\"     \") // yes", "fmt.Println(\"// no\") ", "// yes"},
		{"go", "f(/* a */ 1)", "f(/* a */ 1)", "f(/* a */ 1)", ""},
		{"c", "int x = 1 /* c */", "int x = 1 /* c */", "int x = 1 ", "/* c */"},
		{"c", "int x = 1; /* open", "int x = 1; /* open", "int x = 1; ", "/* open"},
		{"rust", "use a::b; // c 'x'", "use a::b; // c 'x'", "use a::b; ", "// c 'x'"},
		{"javascript", "const s = `a ${b}`; // c", "const s = `      `; // c", "const s = `a ${b}`; ", "// c"},
	} {
		l := ByName(tc.lang)
		if got := l.Hollow(tc.line); got != tc.hollow {
			t.Errorf("%s: Hollow(%q) = %q, want %q", tc.lang, tc.line, got, tc.hollow)
		}
		if code, comment := l.SplitLine(tc.line); code != tc.code || comment != tc.comment {
			t.Errorf("%s: SplitLine(%q) = %q, %q; want %q, %q", tc.lang, tc.line, code, comment, tc.code, tc.comment)
		}
	}
	var none *Language
	if code, comment := none.SplitLine("a // b"); code != "a // b" || comment != "" || none.Hollow(`"a"`) != `"a"` {
		t.Error("a nil Language cut or blanked its text")
	}
}

// TestSyntaxTable holds the rows to what the lexer assumes: no opener
// starts inside a word, prefixes are words, and every interpolation opener
// ends with a bracket the lexer can match.
func TestSyntaxTable(t *testing.T) {
	for _, l := range All() {
		sx := l.Syntax
		openers := append(slices.Clone(sx.Line), sx.BlockOpen)
		for _, q := range sx.Quotes {
			openers = append(openers, q.Delim)
			for _, p := range q.Prefixes {
				if p == "" || wordEnd(p, 0) != len(p) {
					t.Errorf("%s: prefix %q is not a word", l.Name, p)
				}
			}
			if q.Interp != "" && bracketCloser(q.Interp[len(q.Interp)-1]) == 0 {
				t.Errorf("%s: interpolation %q does not end with a bracket", l.Name, q.Interp)
			}
			if q.Delim == "" {
				t.Errorf("%s: a quote without a delimiter", l.Name)
			}
		}
		for _, o := range openers {
			if o != "" && isWordByte(o[0]) {
				t.Errorf("%s: %q starts with a word byte; the lexer skips words", l.Name, o)
			}
		}
	}
}

// TestSpansHostile feeds constructs nested past the lexer's bound and
// openers left open: the spans stay ordered and inside the text.
func TestSpansHostile(t *testing.T) {
	for _, src := range []string{
		strings.Repeat("`${", 200), strings.Repeat("f'{", 200), strings.Repeat("/*", 500) + "*/",
		"/* open", "\"open\nx", "`open", "'", "'\\", "x //", "/", "r#", "r###\"", "R\"" + strings.Repeat("x", 20) + "(", "$\"{", "\"\\(",
	} {
		for _, l := range All() {
			checkSpans(t, l, src)
		}
	}
}

func checkSpans(t *testing.T, l *Language, src string) {
	t.Helper()
	last := 0
	for _, s := range l.Spans(src) {
		if s.Start < last || s.End > len(src) || s.Start >= s.End {
			t.Fatalf("%s: Spans(%q) has bad span %+v after %d", l.Name, src, s, last)
		}
		for _, in := range l.Interpolations(src, s) {
			if in.Kind != Interpolation || in.Start <= s.Start || in.End > s.End || in.Start > in.End {
				t.Fatalf("%s: interpolation %+v outside its literal %+v in %q", l.Name, in, s, src)
			}
		}
		last = s.End
	}
	for _, out := range []string{l.Code(src), l.Hollow(src)} {
		if len(out) != len(src) || strings.Count(out, "\n") != strings.Count(src, "\n") {
			t.Fatalf("%s: Code or Hollow of %q moved offsets or lines: %q", l.Name, src, out)
		}
	}
	if code, comment := l.SplitLine(src); code+comment != src {
		t.Fatalf("%s: SplitLine(%q) = %q, %q", l.Name, src, code, comment)
	}
}

func FuzzSpans(f *testing.F) {
	f.Add("x := \"a\" // b\n/* c */ 'd' `e`", "go")
	f.Add("'''a\n#b''' # c", "python")
	f.Add("#[a] # b /* c */", "php")
	f.Add("x = f\"{d[\"k\"]:>{w}} # no\" # yes", "python")
	f.Add("let s = r#\"a\"# /* a /* b */ */ 'a '\\u{1F600}'", "rust")
	f.Add("a = `x ${`y ${z}`}` // c", "javascript")
	f.Add("auto s = R\"x(a)x\"; // c", "cpp")
	f.Add("let s = \"\\(d[\"k\"]!)\" /* a /* b */ */", "swift")
	f.Fuzz(func(t *testing.T, src, name string) {
		l := ByName(name)
		if l == nil {
			l = All()[len(name)%len(All())]
		}
		checkSpans(t, l, src)
	})
}

// benchSources are about 100 KB of each language: code, comments, and
// literals holding comment markers.
var benchSources = map[string]string{
	"go":         strings.Repeat("// Add adds.\nfunc Add(a, b int) int {\n\ts := \"/* no */\" + `raw\n// no`\n\tr := 'x' /* c */\n\treturn a + b + len(s) + int(r)\n}\n", 900),
	"python":     strings.Repeat("def add(a, b):\n    \"\"\"Add a and b.\n    # not a comment\n    \"\"\"\n    s = f\"{a!r} # no\" + 'x'  # yes\n    return a + b\n", 900),
	"javascript": strings.Repeat("// add adds.\nfunction add(a, b) {\n  const s = `${a} // no ${b}` + '/* no */';\n  return a + b; /* c */\n}\n", 1000),
	"rust":       strings.Repeat("/// Adds.\nfn add<'a>(a: &'a str) -> usize {\n    let s = r#\"// no\"#; /* a /* b */ */\n    a.len() + s.len() + 'x' as usize\n}\n", 900),
}

// BenchmarkCode blanks the comments and literals of about 100 KB of each
// language, as the code-under-test resolver does for every file it reads.
func BenchmarkCode(b *testing.B) {
	for _, name := range []string{"go", "python", "javascript", "rust"} {
		src, l := benchSources[name], ByName(name)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if len(l.Code(src)) != len(src) {
					b.Fatal("length changed")
				}
			}
		})
	}
}
