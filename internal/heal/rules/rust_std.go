package rules

import (
	"strings"

	"github.com/salve-dev/salve/internal/lazyre"
)

// rustItem is one row of the table of std items a Rust file uses without
// a use line: the name rustc reports, the path that binds it, the kinds of
// name rustc may report it as ("" for any), and the confidence of the
// choice (lower where another std item of that name exists).
type rustItem struct {
	path  string
	kinds string
	conf  float64
}

// rustStd maps names to the std item they most often mean. Names whose
// meanings are too evenly split (Weak, Entry of which map, Error as a
// type) are left out: rustc's own "one of these" is the better guide.
var rustStd = map[string]rustItem{}

func init() {
	rows := []struct {
		module string
		names  string
		kinds  string
		conf   float64
	}{
		{"std::collections", "HashMap HashSet BTreeMap BTreeSet VecDeque BinaryHeap LinkedList", "", 0.9},
		{"std::collections::hash_map", "DefaultHasher", "", 0.9},
		{"std::rc", "Rc", "", 0.9},
		{"std::sync", "Arc Mutex RwLock Condvar Barrier OnceLock MutexGuard", "", 0.9},
		{"std::sync::atomic", "AtomicBool AtomicUsize AtomicIsize AtomicU8 AtomicU16 AtomicU32 AtomicU64 AtomicI8 AtomicI16 AtomicI32 AtomicI64", "", 0.9},
		{"std::sync::mpsc", "Sender Receiver SyncSender channel sync_channel", "", 0.9},
		{"std::cell", "RefCell Cell OnceCell", "", 0.9},
		{"std::borrow", "Cow Borrow", "", 0.9},
		{"std::path", "Path PathBuf", "", 0.9},
		{"std::fs", "File OpenOptions", "", 0.9},
		{"std::io", "Read BufRead BufReader BufWriter Seek SeekFrom Stdin Stdout Stderr", "", 0.9},
		{"std::io", "Write", "trait", 0.8},
		{"std::fmt", "Display Formatter", "", 0.9},
		{"std::fmt", "Debug", "trait", 0.9},
		{"std::error", "Error", "trait", 0.9},
		{"std::str", "FromStr", "", 0.9},
		{"std::time", "Duration Instant SystemTime UNIX_EPOCH", "", 0.9},
		{"std::hash", "Hash Hasher BuildHasher", "", 0.9},
		{"std::marker", "PhantomData", "", 0.9},
		{"std::ops", "Add Sub Mul Div Rem Neg AddAssign SubAssign MulAssign Deref DerefMut Index IndexMut Range RangeInclusive", "", 0.9},
		{"std::convert", "Infallible", "", 0.9},
		{"std::cmp", "Reverse max min", "", 0.9},
		{"std::cmp", "Ordering", "", 0.8},
		{"std::mem", "swap replace take", "function", 0.85},
		{"std::process", "Command Stdio ExitCode", "", 0.9},
		{"std::net", "TcpListener TcpStream UdpSocket SocketAddr IpAddr Ipv4Addr Ipv6Addr", "", 0.9},
		{"std::num", "NonZeroUsize NonZeroU32 NonZeroU64 Wrapping ParseIntError ParseFloatError", "", 0.9},
		{"std::any", "Any TypeId", "", 0.9},
		{"std::ffi", "OsStr OsString CStr CString", "", 0.9},
		{"std::iter", "Peekable FromIterator", "", 0.9},
		{"std::thread", "JoinHandle sleep spawn", "", 0.9},
		// modules, reported as "module or crate"
		{"std", "fmt io fs env thread mem cmp iter ptr process time collections net ops sync hash rc cell borrow convert num ffi any marker error str char slice", "module", 0.9},
		{"std::sync", "mpsc atomic", "module", 0.9},
	}
	for _, r := range rows {
		for _, n := range strings.Fields(r.names) {
			rustStd[n] = rustItem{path: r.module + "::" + n, kinds: r.kinds, conf: r.conf}
		}
	}
}

// rustOrderingAtomic tells std::sync::atomic::Ordering from the
// std::cmp::Ordering the table gives, by the variant the line names.
var rustOrderingAtomic = lazyre.New(`\bOrdering::(SeqCst|Relaxed|Acquire|Release|AcqRel)\b`)

// rustMethodTraits maps a method rustc finds no trait in scope for to the
// std trait that provides it; recv, when set, must match the receiver
// type rustc names.
var rustMethodTraits = []struct {
	method string
	recv   *lazyre.Regexp
	path   string
}{
	{"read_to_string", nil, "std::io::Read"},
	{"read_to_end", nil, "std::io::Read"},
	{"read_exact", nil, "std::io::Read"},
	{"write_all", nil, "std::io::Write"},
	{"write_fmt", lazyre.New(`^String$`), "std::fmt::Write"},
	{"write_str", lazyre.New(`^String$`), "std::fmt::Write"},
	{"write_fmt", nil, "std::io::Write"},
	{"flush", nil, "std::io::Write"},
	{"read_line", nil, "std::io::BufRead"},
	{"read_until", nil, "std::io::BufRead"},
	{"lines", lazyre.New(`^(BufReader|StdinLock)\b`), "std::io::BufRead"},
	{"from_str", nil, "std::str::FromStr"},
	{"seek", nil, "std::io::Seek"},
	{"rewind", nil, "std::io::Seek"},
}

var (
	// reRustMissing matches rustc's unresolved-name errors, old and new
	// wording: the kind of name and the name.
	reRustMissing = lazyre.New("cannot find (type|trait|function|value|struct|enum|module or crate|crate or module|macro|tuple struct or tuple variant)? ?`(\\w+)` in this scope|failed to resolve: use of undeclared (type|crate or module) `(\\w+)`")
	// reRustNoMethod matches E0599 for a trait method or associated
	// function: the method and the receiver type.
	reRustNoMethod = lazyre.New("no (?:method|function or associated item) named `(\\w+)` found for (?:\\w+ )?`([^`]+)`")
	// reRustTraitHint is rustc's help naming the trait to import.
	reRustTraitHint = lazyre.New("trait `(\\w+)` which provides `\\w+` is implemented but not in scope")
	// reRustUseHint is a use line rustc proposes, with its diff gutter.
	reRustUseHint = lazyre.New(`(?m)^[\s\d+|]*use ((?:std|core|alloc)(?:::\w+)+);\s*$`)
)

// rustStdPath resolves a report's message to the std path to import, for
// the code of the reported line: a use line rustc proposed when it
// proposed exactly one, else the table's row for the name or the method's
// trait.
func rustStdPath(msg, line string) (string, string, float64, bool) {
	if hs := reRustUseHint.FindAllStringSubmatch(msg, -1); len(hs) > 0 {
		first := hs[0][1]
		one := true
		for _, h := range hs[1:] {
			one = one && h[1] == first
		}
		if one {
			return first, first[strings.LastIndex(first, "::")+2:], 0.9, true
		}
	}
	if m := reRustTraitHint.FindStringSubmatch(msg); m != nil {
		if it, ok := rustStd[m[1]]; ok {
			return it.path, m[1], it.conf, true
		}
	}
	if m := reRustNoMethod.FindStringSubmatch(msg); m != nil {
		for _, r := range rustMethodTraits {
			if r.method == m[1] && (r.recv == nil || r.recv.MatchString(m[2])) {
				return r.path, r.path[strings.LastIndex(r.path, "::")+2:], 0.85, true
			}
		}
		return "", "", 0, false
	}
	m := reRustMissing.FindStringSubmatch(msg)
	if m == nil {
		return "", "", 0, false
	}
	kind, name := m[1]+m[3], m[2]+m[4]
	it, ok := rustStd[name]
	if !ok || kind == "macro" || !rustKindFits(it.kinds, kind) {
		return "", "", 0, false
	}
	if name == "Ordering" && rustOrderingAtomic.MatchString(line) {
		return "std::sync::atomic::Ordering", name, 0.9, true
	}
	return it.path, name, it.conf, true
}

// rustKindFits reports whether rustc's kind of name fits a row's kinds.
func rustKindFits(want, got string) bool {
	switch want {
	case "":
		return true
	case "module":
		return strings.Contains(got, "module") || strings.Contains(got, "crate")
	}
	return got == want || got == ""
}
