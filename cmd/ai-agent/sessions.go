package main

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/safefile"
	"github.com/salve-dev/salve/internal/safeid"
)

// maxSessionBytes bounds a conversation or session file once decompressed.
const maxSessionBytes = 64 << 20

// resume reads --load or --resume into the session options
// (docs/ai-agent.md, "Sessions"). --load continues a conversation with
// fresh limits; --resume continues a whole session: its turns count
// against maxTurns, its accounting is carried over and the new session
// keeps its origin id, so that its file is updated in place.
func (st *startup) resume(s *sessionSetup) error {
	s.args = st.a
	load, hasLoad := st.a.values["load"]
	id, hasResume := st.a.values["resume"]
	switch {
	case hasLoad && hasResume:
		return fmt.Errorf("%w: --load and --resume cannot be used together", config.ErrConfig)
	case hasLoad:
		b, err := readNamedFile("--load", load, maxSessionBytes)
		if err != nil {
			return err
		}
		var conv []contract.Message
		if err := json.Unmarshal(b, &conv); err != nil {
			return fmt.Errorf("%w: failed to load conversation from %s: %v", config.ErrConfig, load, err)
		}
		s.opts.Resume = &agent.Resume{Conversation: conv}
	case hasResume:
		res, err := readSession(s.sessionsDir, id)
		if err != nil {
			return err
		}
		s.opts.Resume = &agent.Resume{Conversation: res.Conversation, Accounting: res.Accounting, TurnsUsed: agent.TurnsIn(res.Conversation)}
		for _, e := range res.Accounting {
			if e.OriginTxnID != "" {
				// The id names the session's file and its --save-all
				// folder: a shared file must not choose where they go.
				if err := safeid.Check("originTxnId", e.OriginTxnID); err != nil {
					return fmt.Errorf("%w: --resume %s: %v", config.ErrConfig, id, err)
				}
				s.opts.Trace.OriginTxnID = e.OriginTxnID
				break
			}
		}
	}
	return nil
}

// readSession reads a session file written to the sessions directory: the
// file itself when id names one, else <dir>/<id>.json.gz.
func readSession(dir, id string) (contract.AIAgentResult, error) {
	var res contract.AIAgentResult
	path := id
	if st, err := os.Stat(id); err != nil || !st.Mode().IsRegular() {
		if !safeid.Valid(id) {
			return res, fmt.Errorf("%w: --resume %q: not a session file, nor a session id", config.ErrConfig, id)
		}
		if dir == "" {
			return res, fmt.Errorf("%w: --resume %s: no sessions directory", config.ErrConfig, id)
		}
		path = filepath.Join(dir, id+".json.gz")
	}
	f, err := safefile.Open(path, safefile.Options{})
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return res, fmt.Errorf("%w: --resume: session %s not found (%s)", config.ErrConfig, id, path)
		}
		return res, fmt.Errorf("%w: --resume: %v", config.ErrConfig, err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return res, fmt.Errorf("%w: --resume %s: not a gzip session file: %v", config.ErrConfig, path, err)
	}
	b, err := io.ReadAll(safefile.LimitReader(zr, maxSessionBytes))
	if err != nil {
		return res, fmt.Errorf("%w: --resume %s: %v", config.ErrConfig, path, err)
	}
	if err := json.Unmarshal(b, &res); err != nil {
		return res, fmt.Errorf("%w: --resume %s: %v", config.ErrConfig, path, err)
	}
	return res, nil
}

// newAccounting is the part of a result's accounting this run added: a
// resumed session's carried entries are already in the billing file.
func (s *sessionSetup) newAccounting(res contract.AIAgentResult) []contract.AccountingEntry {
	if s.opts.Resume == nil || len(s.opts.Resume.Accounting) > len(res.Accounting) {
		return res.Accounting
	}
	return res.Accounting[len(s.opts.Resume.Accounting):]
}

// saveConversations writes --save and --save-all after a successful run,
// as the original does: pretty JSON arrays of messages.
func (s *sessionSetup) saveConversations(a *cliArgs, res contract.AIAgentResult) error {
	if a == nil {
		return nil
	}
	if path, ok := a.values["save"]; ok {
		b, err := indentJSON(res.Conversation)
		if err == nil {
			err = os.WriteFile(path, b, 0o644)
		}
		if err != nil {
			return fmt.Errorf("failed to save conversation to %s: %w", path, err)
		}
	}
	dir, ok := a.values["save-all"]
	if !ok {
		return nil
	}
	origin, txn := "origin", "self"
	if id := s.opts.Trace.OriginTxnID; id != "" {
		origin = id
	}
	if id := s.opts.Trace.TxnID; id != "" {
		txn = id
	}
	if err := checkIDs(origin, txn); err != nil {
		return fmt.Errorf("failed to save conversations to %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("failed to save conversations to %s: %w", dir, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("failed to save conversations to %s: %w", dir, err)
	}
	defer root.Close()
	if err := root.Mkdir(origin, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("failed to save conversations to %s: %w", dir, err)
	}
	if err := writeJSON(root, origin+"/"+txn+"__master.json", res.Conversation); err != nil {
		return fmt.Errorf("failed to save conversations to %s: %w", dir, err)
	}
	for i, c := range s.children.results() {
		self, name := strconv.Itoa(i+1), c.name
		for _, e := range c.res.Accounting {
			if e.TxnID != "" {
				self = e.TxnID
				if e.AgentID != "" {
					name = e.AgentID
				}
				break
			}
		}
		file := origin + "/" + safeName(self) + "__" + safeName(name) + ".json"
		if err := writeJSON(root, file, c.res.Conversation); err != nil {
			return fmt.Errorf("failed to save conversations to %s: %w", dir, err)
		}
	}
	return nil
}

// checkIDs checks the ids a session's files are named after.
func checkIDs(origin, txn string) error {
	if err := safeid.Check("originTxnId", origin); err != nil {
		return err
	}
	return safeid.Check("txnId", txn)
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// safeName makes an id or agent name usable as a file name part.
func safeName(s string) string {
	s = unsafeName.ReplaceAllString(s, "_")
	if s == "" || s == "." || s == ".." {
		return "_"
	}
	return s
}

// indentJSON is v as 2-space indented JSON with a final newline; nil is
// an empty conversation.
func indentJSON(v any) ([]byte, error) {
	if v == nil {
		v = []contract.Message{}
	}
	b, err := json.MarshalIndent(v, "", "  ")
	return append(b, '\n'), err
}

// writeJSON writes v as indented JSON to name under root.
func writeJSON(root *os.Root, name string, v any) error {
	b, err := indentJSON(v)
	if err != nil {
		return err
	}
	return root.WriteFile(name, b, 0o644)
}
