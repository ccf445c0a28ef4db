package lang

import "github.com/salve-dev/salve/internal/lazyre"

// The string syntaxes the rows share.
var (
	dq      = Quote{Delim: `"`, Escape: true}
	sq      = Quote{Delim: `'`, Escape: true}
	char    = Quote{Delim: `'`, Escape: true, Char: true}
	triDQ   = Quote{Delim: `"""`, Escape: true, Multiline: true}
	triSQ   = Quote{Delim: `'''`, Escape: true, Multiline: true}
	dqMulti = Quote{Delim: `"`, Escape: true, Multiline: true}
	sqMulti = Quote{Delim: `'`, Escape: true, Multiline: true}
	// template is a JavaScript template literal.
	template = Quote{Delim: "`", Escape: true, Multiline: true, Interp: "${"}
)

// interp returns q with expressions interpolated by opener.
func interp(q Quote, opener string) Quote {
	q.Interp = opener
	return q
}

// prefixed returns q opened by one of the words.
func prefixed(q Quote, words ...string) Quote {
	q.Prefixes = words
	return q
}

// pyFormatted are the prefixes of Python's f-strings and t-strings, in
// any case, alone or with r.
var pyFormatted = func() []string {
	var out []string
	for _, p := range []string{"f", "t", "rf", "fr", "rt", "tr"} {
		for mask := 0; mask < 1<<len(p); mask++ {
			b := []byte(p)
			for i := range b {
				if mask&(1<<i) != 0 {
					b[i] -= 'a' - 'A'
				}
			}
			out = append(out, string(b))
		}
	}
	return out
}()

// pyQuotes are Python's literals: the formatted ones, whose {…} is code,
// then the others (an r, b or u prefix changes nothing a lexer sees).
var pyQuotes = []Quote{
	prefixed(interp(triDQ, "{"), pyFormatted...), prefixed(interp(triSQ, "{"), pyFormatted...),
	prefixed(interp(dq, "{"), pyFormatted...), prefixed(interp(sq, "{"), pyFormatted...),
	triDQ, triSQ, dq, sq,
}

// cSyntax is the comment syntax of the C family with the given quotes.
func cSyntax(q ...Quote) Syntax {
	return Syntax{Line: []string{"//"}, BlockOpen: "/*", BlockClose: "*/", Quotes: q}
}

// nestSyntax is cSyntax where block comments nest.
func nestSyntax(q ...Quote) Syntax {
	sx := cSyntax(q...)
	sx.BlockNests = true
	return sx
}

// hashSyntax is "#" line comments with the given quotes.
func hashSyntax(wordStart bool, q ...Quote) Syntax {
	return Syntax{Line: []string{"#"}, HashWordStart: wordStart, Quotes: q}
}

// jsImport is an ES module import or a CommonJS require.
var jsImport = lazyre.New(`^\s*(import\s.+|const\s+(\w+|\{[\w\s,:]*\})\s*=\s*require\([^)]*\);?)\s*$`)

// include is a C preprocessor include.
var include = lazyre.New(`^\s*#\s*include\s*[<"][^>"]+[>"]\s*$`)

// jvmImport is a Java, Kotlin, Groovy or Scala import (the semicolon is
// optional outside Java; Scala adds selectors in braces).
var jvmImport = lazyre.New(`^\s*import\s+(static\s+)?[\w.$]+(\.\*|\._|\.\{[\w\s,=>]*\})?(\s+as\s+\w+)?\s*;?\s*$`)

// jvmTests are the JVM build tools' test source folders.
var jvmTests = []string{"src/test", "src/androidtest", "src/testfixtures", "src/integrationtest", "src/it"}

// table is the one language table. Extensions must not repeat across
// rows; TestTable checks that and that every row has a test case.
var table = []*Language{
	{
		Name: "go", Extensions: []string{".go"},
		Syntax:    Syntax{Line: []string{"//"}, BlockOpen: "/*", BlockClose: "*/", Quotes: []Quote{dq, char, {Delim: "`", Multiline: true}}},
		imports:   lazyre.New(`^\s*(import\s*\(?\s*|import\s+(\w+\s+|_\s+|\.\s+)?"[^"]+"\s*|(\w+\s+|_\s+|\.\s+)?"[^"]+"\s*|\)\s*)$`),
		testNames: []string{"*_test.go"},
	},
	{
		Name: "c", Extensions: []string{".c", ".h"},
		Syntax: cSyntax(dq, char), imports: include,
		testNames: []string{"test_*.c", "*_test.c", "*_tests.c", "*_unittest.c"},
		testDirs:  []string{"tests", "test"},
	},
	{
		Name: "cpp", Extensions: []string{".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".inl"},
		Syntax: cSyntax(Quote{Prefixes: []string{"R", "u8R", "uR", "UR", "LR"}, Delim: `"`, Delimited: true, Multiline: true}, dq, char), imports: include,
		testNames: []string{"test_*.cc", "test_*.cpp", "test_*.cxx", "*_test.cc", "*_test.cpp", "*_test.cxx", "*_tests.cc", "*_tests.cpp", "*_unittest.cc", "*_unittest.cpp"},
		testDirs:  []string{"tests", "test"},
	},
	{
		Name: "java", Extensions: []string{".java"},
		Syntax: cSyntax(triDQ, dq, char), imports: jvmImport,
		testNames: []string{"*Test.java", "*Tests.java", "*IT.java", "*TestCase.java", "Test*.java"},
		testDirs:  jvmTests,
	},
	{
		Name: "kotlin", Extensions: []string{".kt", ".kts"},
		Syntax: nestSyntax(Quote{Delim: `"""`, Multiline: true, Interp: "${"}, interp(dq, "${"), char), imports: jvmImport,
		testNames: []string{"*Test.kt", "*Tests.kt", "*IT.kt", "*Spec.kt"},
		testDirs:  jvmTests,
	},
	{
		Name: "scala", Extensions: []string{".scala", ".sc"},
		Syntax: nestSyntax(Quote{Prefixes: []string{"s", "f", "raw"}, Delim: `"""`, Multiline: true, Interp: "${"}, Quote{Delim: `"""`, Multiline: true},
			prefixed(interp(dq, "${"), "s", "f"), Quote{Prefixes: []string{"raw"}, Delim: `"`, Interp: "${"}, dq, char), imports: jvmImport,
		testNames: []string{"*Test.scala", "*Tests.scala", "*Spec.scala", "*Suite.scala"},
		testDirs:  jvmTests,
	},
	{
		Name: "groovy", Extensions: []string{".groovy", ".gradle"}, Filenames: []string{"Jenkinsfile"},
		Syntax: cSyntax(interp(triDQ, "${"), triSQ, interp(dq, "${"), sq), imports: jvmImport,
		testNames: []string{"*Test.groovy", "*Spec.groovy", "*Tests.groovy"},
		testDirs:  jvmTests,
	},
	{
		Name: "csharp", Extensions: []string{".cs"},
		Syntax: cSyntax(Quote{Delim: `"""`, Multiline: true},
			Quote{Delim: `$@"`, Close: `"`, Multiline: true, Interp: "{"}, Quote{Delim: `@$"`, Close: `"`, Multiline: true, Interp: "{"},
			Quote{Delim: `$"`, Close: `"`, Escape: true, Interp: "{"}, Quote{Delim: `@"`, Close: `"`, Multiline: true}, dq, char),
		imports:   lazyre.New(`^\s*(global\s+)?using\s+(static\s+)?(\w+\s*=\s*)?[\w.]+(<[\w.,\s]*>)?\s*;\s*$`),
		testNames: []string{"*Test.cs", "*Tests.cs", "*Specs.cs"},
		testDirs:  []string{"tests", "test", "*.tests", "*.test", "*.unittests", "*.specs"},
	},
	{
		Name: "swift", Extensions: []string{".swift"},
		Syntax:    nestSyntax(Quote{Delim: `"""`, Escape: true, Multiline: true, Interp: `\(`}, interp(dq, `\(`)),
		imports:   lazyre.New(`^\s*(@testable\s+)?import\s+((typealias|struct|class|enum|protocol|let|var|func)\s+)?[\w.]+\s*$`),
		testNames: []string{"*Tests.swift", "*Test.swift"},
		testDirs:  []string{"tests", "*tests"},
	},
	{
		Name: "rust", Extensions: []string{".rs"},
		Syntax:    nestSyntax(Quote{Prefixes: []string{"r", "br", "cr"}, Delim: `"`, Hashes: true, Multiline: true}, dqMulti, char),
		imports:   lazyre.New(`^\s*((pub(\([\w:]+\))?\s+)?use\s+[\w:]+(::\{[\w:, {}*]*\}|::\*)?(\s+as\s+\w+)?;|extern\s+crate\s+\w+(\s+as\s+\w+)?;)\s*$`),
		testNames: []string{"tests.rs", "*_tests.rs", "*_test.rs"},
		testDirs:  []string{"tests", "benches"},
	},
	{
		Name: "javascript", Extensions: []string{".js", ".jsx", ".mjs", ".cjs"},
		Syntax: cSyntax(dq, sq, template), imports: jsImport,
		testNames: []string{"*.test.*", "*.spec.*", "*.cy.*", "*.e2e-spec.*"},
		testDirs:  []string{"__tests__", "__mocks__", "tests", "test"},
	},
	{
		Name: "typescript", Extensions: []string{".ts", ".tsx", ".mts", ".cts"},
		Syntax: cSyntax(dq, sq, template), imports: jsImport,
		testNames: []string{"*.test.*", "*.spec.*", "*.cy.*", "*.e2e-spec.*"},
		testDirs:  []string{"__tests__", "__mocks__", "tests", "test"},
	},
	{
		Name: "python", Extensions: []string{".py", ".pyi", ".pyw"},
		Syntax:    hashSyntax(false, pyQuotes...),
		imports:   lazyre.New(`^\s*(import\s+[\w.]+(\s+as\s+\w+)?(\s*,\s*[\w.]+(\s+as\s+\w+)?)*|from\s+[\w.]+\s+import\s+.+)\s*$`),
		testNames: []string{"test_*.py", "*_test.py", "conftest.py", "tests.py"},
		testDirs:  []string{"tests", "test"},
	},
	{
		Name: "ruby", Extensions: []string{".rb", ".rake", ".gemspec"}, Filenames: []string{"Rakefile", "Gemfile"},
		Syntax:    hashSyntax(false, interp(dqMulti, "#{"), sqMulti),
		imports:   lazyre.New(`^\s*require(_relative)?\s*\(?\s*['"][^'"]+['"]\s*\)?\s*$`),
		testNames: []string{"*_spec.rb", "*_test.rb", "test_*.rb"},
		testDirs:  []string{"spec", "test"},
	},
	{
		Name: "php", Extensions: []string{".php", ".phtml"},
		Syntax:    Syntax{Line: []string{"//", "#"}, NotLine: []string{"#["}, BlockOpen: "/*", BlockClose: "*/", Quotes: []Quote{dqMulti, sqMulti}},
		imports:   lazyre.New(`^\s*(use\s+(function\s+|const\s+)?\\?[\w\\]+(\s+as\s+\w+)?\s*;|(require|include)(_once)?\s*\(?\s*['"][^'"]+['"]\s*\)?\s*;)\s*$`),
		testNames: []string{"*Test.php", "*TestCase.php"},
		testDirs:  []string{"tests", "test"},
	},
	{
		Name: "shell", Extensions: []string{".sh", ".bash", ".zsh", ".ksh", ".bats"},
		Syntax:    hashSyntax(true, dqMulti, Quote{Delim: `'`, Multiline: true}),
		imports:   lazyre.New(`^\s*(source|\.)\s+["']?[\w./${}-]+["']?\s*$`),
		testNames: []string{"*.bats", "test_*.sh", "*_test.sh"},
		testDirs:  []string{"tests", "test"},
	},
	{
		Name: "perl", Extensions: []string{".pl", ".pm", ".t"},
		Syntax:    hashSyntax(true, dq, sq),
		imports:   lazyre.New(`^\s*(use|require)\s+[\w:]+(\s+[^;]*)?;\s*$`),
		testNames: []string{"*.t"},
		testDirs:  []string{"t"},
	},
	{
		Name: "r", Extensions: []string{".r"},
		Syntax:    hashSyntax(false, dq, sq),
		imports:   lazyre.New(`^\s*(library|require|requireNamespace)\(\s*["']?[\w.]+["']?\s*\)\s*$`),
		testNames: []string{"test-*.R", "test_*.R", "test-*.r", "test_*.r"},
		testDirs:  []string{"tests"},
	},
	{
		Name: "yaml", Extensions: []string{".yaml", ".yml"},
		Syntax: hashSyntax(true, Quote{Delim: `"`, Escape: true, Multiline: true}, Quote{Delim: `'`, Multiline: true}),
	},
	{
		Name: "toml", Extensions: []string{".toml"},
		Syntax: hashSyntax(false, triDQ, Quote{Delim: `'''`, Multiline: true}, dq, Quote{Delim: `'`}),
	},
	{
		Name: "make", Extensions: []string{".mk"}, Filenames: []string{"Makefile", "makefile", "GNUmakefile"},
		Syntax: hashSyntax(false),
	},
	{
		Name: "dockerfile", Extensions: []string{".dockerfile"}, Filenames: []string{"Dockerfile", "Containerfile"},
		Syntax: hashSyntax(true, dq, sq),
	},
}

// The rows' byte tables are built once.
func init() {
	for _, l := range table {
		l.Syntax.bytes = l.Syntax.tables()
	}
}
