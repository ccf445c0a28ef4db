package integrity

import (
	"slices"

	"github.com/salve-dev/salve/internal/lazyre"
)

// where says which view of a line a pattern reads.
type where uint8

const (
	inCode    where = iota // the mask: code, with strings blanked
	inComment              // the comments only
)

// pattern is one row of the tables below.
type pattern struct {
	langs []string // language rows it applies to; nil is every language
	where where
	re    *lazyre.Regexp
	what  string // how Detail names what it found
}

func (p *pattern) applies(name string) bool { return p.langs == nil || slices.Contains(p.langs, name) }

func (p *pattern) text(l *line) string {
	if p.where == inComment {
		return l.comment
	}
	return l.mask
}

var (
	goL   = []string{"go"}
	pyL   = []string{"python"}
	rsL   = []string{"rust"}
	rbL   = []string{"ruby"}
	phpL  = []string{"php"}
	csL   = []string{"csharp"}
	swL   = []string{"swift"}
	jvmCS = []string{"java", "kotlin", "scala", "groovy", "csharp"}
)

// assertions start an assertion: a check a test makes. The match is the
// assertion's callee.
var assertions = []pattern{
	{langs: goL, re: lazyre.New(`\b(t|b|f|tb|tt|s|suite)\.(Error|Errorf|Fatal|Fatalf|Fail|FailNow)\s*\(`)},
	{langs: goL, re: lazyre.New(`\b(assert|require|is|qt|check)\.\w+\s*\(|\bs\.(Require\(\)\.)?(Equal|True|False|Nil|NotNil|NoError|Error|Len|Empty|NotEmpty|Contains)\w*\s*\(|\b(Expect|Ω|Eventually|Consistently)\s*\(`)},
	{langs: pyL, re: lazyre.New(`^\s*assert\b|\bself\.(assert\w*|fail\w*)\s*\(|\bpytest\.(raises|warns|fail|approx)\s*\(|\b(np|numpy)\.testing\.assert_\w+\s*\(|\bassert_\w+\s*\(`)},
	{langs: jvm, re: lazyre.New(`\b(Assert\.|Assertions\.|Truth\.)?(assert\w*|fail|verify)\s*\(|^\s*assert\s|\s(should(Not)?(Be|Equal|Contain|Throw|Have|Start|End|Match)\w*)\s+[^=\s]`)},
	{langs: csL, re: lazyre.New(`\b(Assert|CollectionAssert|StringAssert|ClassicAssert)\.\w+\s*\(|\.Should\s*\(\s*\)`)},
	{langs: rsL, re: lazyre.New(`\b(debug_)?(prop_)?assert(_eq|_ne|_matches)?!\s*[(\[{]`)},
	{langs: jsts, re: lazyre.New(`\bexpect(TypeOf)?\s*\(|\bassert(\.\w+)*\s*\(|\.should\b`)},
	{langs: clangs, re: lazyre.New(`\b(static_)?assert\s*\(|\b(ASSERT|EXPECT|CHECK|REQUIRE|TEST_ASSERT|CU_ASSERT|ck_assert)\w*\s*\(|\bBOOST_(CHECK|REQUIRE|TEST|WARN)\w*\s*\(`)},
	{langs: rbL, re: lazyre.New(`\bexpect\s*[({]|\b(assert|refute)(_\w+)?\b|\.(should|should_not)\b|\bis_expected\b`)},
	{langs: phpL, re: lazyre.New(`(\$this->|self::|static::|Assert::)(assert\w*|fail|expectException\w*)\s*\(|\bexpect\s*\(`)},
	{langs: swL, re: lazyre.New(`\bXCT(Assert\w*|Fail)\s*\(|#(expect|require)\s*\(`)},
	{langs: []string{"shell"}, re: lazyre.New(`\b(assert|refute)(_\w+)?\b`)},
	{langs: []string{"perl"}, re: lazyre.New(`^\s*(ok|is|isnt|like|unlike|is_deeply|cmp_ok|can_ok|isa_ok|throws_ok|dies_ok|lives_ok)\s*[(\s]`)},
	{langs: []string{"r"}, re: lazyre.New(`\b(expect_\w+|stopifnot)\s*\(`)},
}

// guard is a condition opening the block an assertion sits in ("if got
// != want {", "if x:").
var guard = lazyre.New(`^\s*(\}\s*)?(else\s+)?(if|elif|elsif|unless|when)\b`)

// skips add a skip: the test no longer runs or no longer fails.
var skips = []pattern{
	{langs: goL, re: lazyre.New(`\b\w+\.(Skip|Skipf|SkipNow)\s*\(`), what: "a Skip call"},
	{langs: goL, re: lazyre.New(`\btesting\.Short\s*\(`), what: "a testing.Short() guard"},
	{langs: goL, where: inComment, re: lazyre.New(`^\s*//\s*(go:build|\+build)\b.*\bignore\b`), what: "an ignore build constraint"},
	{langs: pyL, re: lazyre.New(`@pytest\.mark\.(skip|skipif|xfail)\b|\bpytest\.(skip|xfail|importorskip)\s*\(|@unittest\.(skip\w*|expectedFailure)\b|\braise\s+(unittest\.)?SkipTest\b|\bself\.skipTest\s*\(`), what: "a pytest/unittest skip"},
	{langs: jvm, re: lazyre.New(`@(Disabled\w*|Ignore|EnabledIf\w*|EnabledOn\w*)\b|\b(Assumptions\.|Assume\.)?assume\w*\s*\(`), what: "a disabled test or an assumption"},
	{langs: csL, re: lazyre.New(`\[\s*Ignore\b|\bSkip\s*=|\bAssert\.(Ignore|Inconclusive)\s*\(`), what: "an ignored test"},
	{langs: rsL, re: lazyre.New(`#\[\s*(ignore|should_panic)\b`), what: "an #[ignore] or #[should_panic] attribute"},
	{langs: rsL, re: lazyre.New(`#\[\s*cfg\s*\(\s*(any\s*\(\s*\)|all\s*\(.*\bfeature\b|not\s*\(\s*test\s*\)|false|FALSE)`), what: "a cfg attribute that compiles the tests out"},
	{langs: jsts, re: lazyre.New(`(^|[^\w.$])(it|test|describe|context|suite|specify|bench)\.(skip|only|todo|skipIf|runIf|fixme|fails?|failing)\b|(^|[^\w.$])(xit|xtest|xdescribe|xcontext|xspecify|fit|fdescribe)\s*\(|\bthis\.skip\s*\(`), what: "a skipped or focused (.only) test"},
	{langs: rbL, re: lazyre.New(`^\s*(skip|pending|xit|xdescribe|xcontext|xspecify|fit|fdescribe)\b|\bskip:\s*true\b`), what: "a skipped or pending spec"},
	{langs: phpL, re: lazyre.New(`\bmarkTest(Skipped|Incomplete)\s*\(`), what: "markTestSkipped"},
	{langs: clangs, re: lazyre.New(`\bGTEST_SKIP\s*\(|\(\s*\w+\s*,\s*DISABLED_\w+|\bDISABLED_\w+\s*\)`), what: "a skipped or DISABLED_ test"},
	{langs: swL, re: lazyre.New(`\bXCTSkip(If|Unless)?\b|\.disabled\s*\(`), what: "an XCTSkip"},
	{langs: []string{"kotlin"}, re: lazyre.New(`\benabled\s*=\s*false\b`), what: "a disabled test"},
}

// testDecls declare one test; a drop in their count is a test removed or
// renamed out of the runner's discovery.
var testDecls = []pattern{
	{langs: goL, re: lazyre.New(`^func\s+(Test|Benchmark|Fuzz)([^a-z]\w*)?\s*\(|^func\s+Example\w*\s*\(\s*\)`), what: "a Go test function"},
	{langs: pyL, re: lazyre.New(`^\s*(async\s+)?def\s+test\w*\s*\(|^\s*class\s+Test\w*`), what: "a test function or class"},
	{langs: jvm, re: lazyre.New(`@(Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)\b|\bvoid\s+test\w*\s*\(`), what: "a @Test method"},
	{langs: csL, re: lazyre.New(`\[\s*(Fact|Theory|Test|TestMethod|TestCase|InlineData|DataRow)\b`), what: "a test method or case"},
	{langs: rsL, re: lazyre.New(`#\[\s*(test|tokio::test|rstest|test_case)\b`), what: "a #[test] function"},
	{langs: rsL, re: lazyre.New(`#\[\s*cfg\s*\(\s*test\s*\)\s*\]`), what: "a #[cfg(test)] module"},
	{langs: jsts, re: lazyre.New(`(^|[^\w.$])(it|test|specify)(\.\w+)*\s*\(`), what: "an it()/test() case"},
	{langs: rbL, re: lazyre.New(`^\s*(it|specify|scenario|example)\b|^\s*def\s+test_`), what: "a spec example or test method"},
	{langs: phpL, re: lazyre.New(`\bfunction\s+test\w*\s*\(|#\[Test\]`), what: "a test method"},
	{langs: clangs, re: lazyre.New(`^\s*(TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P|TEST_CASE|SCENARIO|SECTION|BOOST_AUTO_TEST_CASE|BOOST_FIXTURE_TEST_CASE)\s*\(`), what: "a test case"},
	{langs: swL, re: lazyre.New(`\bfunc\s+test\w*\s*\(|@Test\b`), what: "a test method"},
	{langs: []string{"scala"}, re: lazyre.New(`^\s*(test|it)\s*\(`), what: "a test case"},
}

// suppressions silence a checker. The match, blanks collapsed, is what a
// report's message must contain for the fix to add it.
var suppressions = []pattern{
	{where: inComment, re: lazyre.New(`//\s*nolint\b(:[\w,-]+)?|\bNOLINT(NEXTLINE|BEGIN)?\b(\([\w,.*-]+\))?|//\s*lint:(ignore|file-ignore)\b\s*[\w,]*`)},
	{where: inComment, re: lazyre.New(`#\s*type:\s*ignore\b(\[[\w,\s-]*\])?|#\s*noqa\b(:\s*[\w, ]+)?|\b(flake8|ruff):\s*noqa\b|#\s*(pylint|mypy):\s*(disable|ignore-errors)\b[=\w,-]*|#\s*pyright:\s*(ignore|basic|reportGeneralTypeIssues)\b(\[[\w,\s-]*\])?|#\s*pyre-(ignore|fixme)\b(\[[\d,\s]*\])?`)},
	{where: inComment, re: lazyre.New(`@ts-(ignore|expect-error|nocheck)\b|\beslint-disable(-next-line|-line)?\b[ \w/@,-]*|\b(deno-lint-ignore|biome-ignore|prettier-ignore)\b[ \w/:,-]*|\b(istanbul|c8|v8)\s+ignore\b[ \w]*|#\s*pragma:\s*no\s*cover\b`)},
	{where: inComment, re: lazyre.New(`@phpstan-ignore[\w-]*|@psalm-suppress\s+\w+|#\s*rubocop:\s*disable\b[ \w/,]*|#\s*shellcheck\s+disable=[\w,]+|swiftlint:disable\b[ \w:]*|\bNOSONAR\b|#\s*nosec\b`)},
	{langs: rsL, re: lazyre.New(`#!?\[\s*(allow|expect)\s*\([^)\]]*\)\s*\]|#!?\[\s*cfg_attr\s*\([^\]]*\b(allow|expect)\s*\(`)},
	{langs: jvmCS, re: lazyre.New(`@Suppress(Warnings|Lint)?\s*\(\s*[^)]*\)|@Suppress(Warnings|Lint)\b|\[\s*(assembly:\s*)?(System\.Diagnostics\.CodeAnalysis\.)?SuppressMessage\b`)},
	{langs: []string{"c", "cpp", "csharp"}, re: lazyre.New(`#\s*pragma\s+warning\s*\(?\s*disable\b[\s:\w,]*|#\s*pragma\s+(GCC|clang)\s+diagnostic\s+ignored\b\s*"?[-\w=]*`)},
	{langs: []string{"c", "cpp"}, re: lazyre.New(`\[\[\s*(maybe_unused|gnu::unused)\s*\]\]|__attribute__\s*\(\(\s*unused\s*\)\)`)},
	{langs: []string{"kotlin"}, re: lazyre.New(`@Suppress\s*\([^)]*\)|@file:Suppress\s*\([^)]*\)`)},
}

// earlyReturn is a bare return: code after it in the same block, added
// in test code, no longer runs.
var earlyReturn = lazyre.New(`^\s*return\b\s*(nil|None|null|undefined|false|0)?\s*;?\s*$`)
