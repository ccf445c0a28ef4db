package secret

import (
	"io"
	"sort"
	"strings"
	"sync"
)

// MinLen is the shortest value a [Masker] masks: shorter values ("1",
// "true", a port number) would shred ordinary output and are not secrets
// worth the name.
const MinLen = 6

// Masker replaces known secret values in text with a marker naming where
// the secret came from ("[masked OPENAI_API_KEY]"), so that what salve
// stores or prints of a build's output (build.log, the run store, results,
// the terminal) never holds them. The zero value and nil mask nothing. A
// Masker is safe for concurrent use once built.
type Masker struct {
	secrets []entry
	first   [256]bool
}

type entry struct {
	value []byte
	mark  []byte
}

// NewMasker returns a Masker for the given values, each masked as
// "[masked]". Values shorter than [MinLen] are ignored.
func NewMasker(values ...string) *Masker {
	m := &Masker{}
	for _, v := range values {
		m.add(v, "[masked]")
	}
	m.sort()
	return m
}

// FromEnv returns a Masker for the values of the secret variables
// ([IsSecretName]) in each KEY=VALUE list given, each masked as
// "[masked NAME]", plus extra values (for example the header values of a
// configuration), masked as "[masked]".
func FromEnv(envs [][]string, extra ...string) *Masker {
	m := &Masker{}
	for _, env := range envs {
		for _, kv := range env {
			if k, v, ok := strings.Cut(kv, "="); ok && IsSecretName(k) {
				m.add(v, "[masked "+k+"]")
			}
		}
	}
	for _, v := range extra {
		m.add(v, "[masked]")
	}
	m.sort()
	return m
}

// With returns a new Masker that masks m's secrets and values too.
func (m *Masker) With(values ...string) *Masker {
	out := &Masker{}
	if m != nil {
		out.secrets = append(out.secrets, m.secrets...)
		out.first = m.first
	}
	for _, v := range values {
		out.add(v, "[masked]")
	}
	out.sort()
	return out
}

func (m *Masker) add(v, mark string) {
	v = strings.TrimSpace(v)
	if len(v) < MinLen {
		return
	}
	for _, s := range m.secrets {
		if string(s.value) == v {
			return
		}
	}
	m.secrets = append(m.secrets, entry{value: []byte(v), mark: []byte(mark)})
	m.first[v[0]] = true
}

// sort puts longer secrets first, so that a secret that contains another
// is masked whole.
func (m *Masker) sort() {
	sort.SliceStable(m.secrets, func(i, j int) bool { return len(m.secrets[i].value) > len(m.secrets[j].value) })
}

// Uniform returns a new Masker that masks m's secrets with mark, whatever
// their own marks (the tool adapter writes "[REDACTED]" everywhere).
func (m *Masker) Uniform(mark string) *Masker {
	out := &Masker{}
	if m == nil {
		return out
	}
	out.first = m.first
	for _, s := range m.secrets {
		out.secrets = append(out.secrets, entry{value: s.value, mark: []byte(mark)})
	}
	return out
}

// Empty reports whether m masks nothing.
func (m *Masker) Empty() bool { return m == nil || len(m.secrets) == 0 }

// Mask returns s with every secret replaced.
func (m *Masker) Mask(s string) string {
	if m.Empty() {
		return s
	}
	out, rest := m.scan(nil, []byte(s), true)
	return string(append(out, rest...))
}

// MaskBytes returns b with every secret replaced, in a new slice when
// anything was replaced (b itself otherwise).
func (m *Masker) MaskBytes(b []byte) []byte {
	if m.Empty() {
		return b
	}
	out, rest := m.scan(nil, b, true)
	return append(out, rest...)
}

// scan appends b to out with the secrets replaced. Unless final, it stops
// at a trailing partial match (a proper prefix of a secret that the next
// bytes may complete) and returns that tail unwritten.
func (m *Masker) scan(out, b []byte, final bool) ([]byte, []byte) {
	start := 0
	for i := 0; i < len(b); i++ {
		if !m.first[b[i]] {
			continue
		}
		matched, partial := false, false
		for _, s := range m.secrets {
			n := len(s.value)
			if len(b)-i >= n {
				if string(b[i:i+n]) == string(s.value) {
					if partial {
						break // a longer secret may still match here: wait
					}
					out = append(append(out, b[start:i]...), s.mark...)
					i += n - 1
					start = i + 1
					matched = true
					break
				}
			} else if !final && string(b[i:]) == string(s.value[:len(b)-i]) {
				partial = true
			}
		}
		if !matched && partial {
			return append(out, b[start:i]...), b[i:]
		}
	}
	return append(out, b[start:]...), nil
}

// Writer returns a writer that passes what is written on to w with the
// secrets masked, holding back a tail that may be the start of a secret
// until the next write or Close completes it. Close flushes the tail and
// does not close w. With nothing to mask it returns w itself, wrapped to
// give it a no-op Close.
func (m *Masker) Writer(w io.Writer) io.WriteCloser {
	if m.Empty() {
		return nopCloser{w}
	}
	return &maskWriter{m: m, w: w}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

type maskWriter struct {
	mu   sync.Mutex
	m    *Masker
	w    io.Writer
	tail []byte
	out  []byte
	err  error
}

// Write masks p (with any held-back tail before it) and writes what is
// certain. It reports len(p) unless the underlying writer failed.
func (mw *maskWriter) Write(p []byte) (int, error) {
	mw.mu.Lock()
	defer mw.mu.Unlock()
	if mw.err != nil {
		return 0, mw.err
	}
	buf := p
	if len(mw.tail) > 0 {
		buf = append(mw.tail, p...)
	}
	var rest []byte
	mw.out, rest = mw.m.scan(mw.out[:0], buf, false)
	mw.tail = append([]byte(nil), rest...)
	if len(mw.out) > 0 {
		if _, err := mw.w.Write(mw.out); err != nil {
			mw.err = err
			return 0, err
		}
	}
	return len(p), nil
}

// Close writes the held-back tail.
func (mw *maskWriter) Close() error {
	mw.mu.Lock()
	defer mw.mu.Unlock()
	if mw.err != nil || len(mw.tail) == 0 {
		return mw.err
	}
	out, _ := mw.m.scan(nil, mw.tail, true)
	mw.tail = nil
	_, mw.err = mw.w.Write(out)
	return mw.err
}
