// Package tooloutput keeps oversized tool outputs of one session under a
// handle and extracts from them by lines, by pattern, by truncation or in
// model-sized chunks (docs/ai-agent.md, "Oversized tool outputs"). The
// store lives in memory and is bounded in entries and bytes; it dies with
// its session.
package tooloutput

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Tool is the name of the extraction tool offered to the model.
const Tool = "tool_output"

// Modes of the extraction tool. Auto, FullChunked, ReadGrep and Truncate
// are the original ai-agent's; Lines and Grep are salve's deterministic
// additions.
const (
	ModeAuto        = "auto"
	ModeFullChunked = "full-chunked"
	ModeReadGrep    = "read-grep"
	ModeTruncate    = "truncate"
	ModeLines       = "lines"
	ModeGrep        = "grep"
)

// Defaults of the toolOutput settings.
const (
	DefaultMaxChunks             = 1
	DefaultOverlapPercent        = 10
	DefaultAvgLineBytesThreshold = 1000
	// DefaultMaxEntries and DefaultMaxBytes bound one session's store;
	// the oldest entries go first.
	DefaultMaxEntries = 64
	DefaultMaxBytes   = 64 << 20
)

// NoData is the answer when nothing relevant was found.
const NoData = "NO RELEVANT DATA FOUND"

// Config is the toolOutput section (config file or frontmatter).
type Config struct {
	// Enabled turns the store on. Off, an oversized output is truncated
	// with the contract's notice.
	Enabled bool
	// MaxChunks is the most chunks full-chunked may use.
	MaxChunks int
	// OverlapPercent is the overlap of consecutive chunks, 0..50.
	OverlapPercent int
	// AvgLineBytesThreshold makes auto choose full-chunked for outputs
	// with long lines.
	AvgLineBytesThreshold int
}

// WithDefaults fills the zero values.
func (c Config) WithDefaults() Config {
	if c.MaxChunks <= 0 {
		c.MaxChunks = DefaultMaxChunks
	}
	if c.OverlapPercent < 0 {
		c.OverlapPercent = DefaultOverlapPercent
	}
	c.OverlapPercent = min(c.OverlapPercent, 50)
	if c.AvgLineBytesThreshold <= 0 {
		c.AvgLineBytesThreshold = DefaultAvgLineBytesThreshold
	}
	return c
}

// Entry is one stored output.
type Entry struct {
	Handle  string
	Tool    string
	Args    string
	Content string
	Bytes   int
	Lines   int
	Tokens  int
	Created time.Time
}

// AvgLineBytes is ceil(bytes/lines).
func (e *Entry) AvgLineBytes() int {
	if e.Lines == 0 {
		return 0
	}
	return (e.Bytes + e.Lines - 1) / e.Lines
}

// Store holds the entries of one session. It is safe for concurrent use.
type Store struct {
	mu         sync.Mutex
	entries    map[string]*Entry
	order      []string
	total      int
	maxEntries int
	maxBytes   int
}

// NewStore returns a store bounded to maxEntries entries and maxBytes bytes
// of content; zero takes the defaults.
func NewStore(maxEntries, maxBytes int) *Store {
	if maxEntries <= 0 {
		maxEntries = DefaultMaxEntries
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return &Store{entries: map[string]*Entry{}, maxEntries: maxEntries, maxBytes: maxBytes}
}

// Put stores content under a new handle (a lowercase UUID v4), evicting the
// oldest entries beyond the bounds.
func (s *Store) Put(tool, args, content string, now time.Time) *Entry {
	e := &Entry{Handle: uuid.NewString(), Tool: tool, Args: args, Content: content, Bytes: len(content),
		Lines: countLines(content), Tokens: (len(content) + 3) / 4, Created: now}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries[e.Handle] = e
	s.order = append(s.order, e.Handle)
	s.total += e.Bytes
	for len(s.order) > 1 && (len(s.order) > s.maxEntries || s.total > s.maxBytes) {
		old := s.order[0]
		s.order = s.order[1:]
		s.total -= s.entries[old].Bytes
		delete(s.entries, old)
	}
	return e
}

// Get returns the entry of a handle.
func (s *Store) Get(handle string) (*Entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[strings.TrimSpace(handle)]
	return e, ok
}

// Len is the number of entries.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(s, "\n") + 1
}

// HandleMessage is the tool result the model sees instead of a stored
// output (the original ai-agent's wording).
func HandleMessage(e *Entry) string {
	return fmt.Sprintf("Tool output is too large (%d bytes, %d lines, %d tokens).\n"+
		"Call %s(handle = %q, extract = \"what to extract\").\n"+
		"Provide precise and detailed instructions in `extract` about what you are looking for.", e.Bytes, e.Lines, e.Tokens, Tool, e.Handle)
}

// Description is the extraction tool's description.
const Description = "Extract information from a stored oversized tool output by handle. " +
	"mode: auto (default; the model reads the output for you), full-chunked (the same, forced), " +
	"read-grep or grep (extract is a regular expression, or keywords; matching lines come back numbered), " +
	"lines (extract is a line range such as 120-180), truncate (the start of the output)."

// InputSchema is the extraction tool's input schema.
const InputSchema = `{"type":"object","additionalProperties":false,"properties":{` +
	`"handle":{"type":"string","minLength":1,"description":"the handle of the stored output"},` +
	`"extract":{"type":"string","minLength":1,"description":"what to extract: instructions, a pattern (grep) or a line range (lines)"},` +
	`"mode":{"type":"string","enum":["auto","full-chunked","read-grep","truncate","lines","grep"]}},` +
	`"required":["handle","extract"]}`
