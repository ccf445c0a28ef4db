package integrity

// TestSource is one failing test's file, handed to the rules that judge
// what an edit of the code under test does against the test: the literals
// the test feeds in and expects, the names it reads.
type TestSource struct {
	// Path is the test file's repository-relative path, with forward
	// slashes.
	Path string
	// Content is the file's whole text.
	Content string
	// Names are the failing tests in it, as the reports spell them (a Go
	// test function, a pytest node id, "Class.method"); empty when the
	// reports name none.
	Names []string
}
