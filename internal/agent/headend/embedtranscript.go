package headend

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// Embed transcripts (docs/ai-agent.md, Embed headend): every chat of an
// embed client is kept, as the original keeps it, in
// <sessionsDir>/embed-conversations/<clientId>.json.gz, one turn per
// chat: the question, the status lines, the answer.

// transcriptDir is the folder under the sessions dir.
const transcriptDir = "embed-conversations"

// maxTranscriptBytes bounds a transcript read back (decompressed): a
// larger or unreadable file starts a new transcript, as the original
// does with one it cannot parse.
const maxTranscriptBytes = 32 << 20

// Transcript is one client's transcript file.
type Transcript struct {
	Version   int              `json:"version"`
	ClientID  string           `json:"clientId"`
	Origin    string           `json:"origin"`
	UpdatedAt string           `json:"updatedAt"`
	Turns     []TranscriptTurn `json:"turns"`
}

// TranscriptTurn is one chat: Entries are the user's message, the status
// lines and the assistant's answer, in order.
type TranscriptTurn struct {
	Turn    int               `json:"turn"`
	TS      string            `json:"ts"`
	Entries []TranscriptEntry `json:"entries"`
}

// TranscriptEntry is one entry of a turn; Role is user, status or
// assistant.
type TranscriptEntry struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// transcripts writes the transcripts of the embed headends; a mutex keeps
// two chats of one client from losing each other's turn.
type transcripts struct{ mu sync.Mutex }

// append adds a turn to the transcript of clientID under sessionsDir
// ("" keeps none). clientID must already match clientIDPattern; the file
// is written through a root opened on its folder and renamed into place.
func (t *transcripts) append(sessionsDir, clientID string, entries []TranscriptEntry, at time.Time) error {
	if sessionsDir == "" {
		return nil
	}
	if !clientIDPattern.MatchString(clientID) {
		return fmt.Errorf("embed transcript: client id %q refused", clientID)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	dir := filepath.Join(sessionsDir, transcriptDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("embed transcript: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("embed transcript: %w", err)
	}
	defer root.Close()
	name := clientID + ".json.gz"
	tr := readTranscript(root, name, clientID)
	stamp := at.UTC().Format("2006-01-02T15:04:05.000Z07:00")
	tr.Turns = append(tr.Turns, TranscriptTurn{Turn: len(tr.Turns) + 1, TS: stamp, Entries: entries})
	tr.UpdatedAt = stamp
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(tr); err != nil {
		return fmt.Errorf("embed transcript: encode: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("embed transcript: compress: %w", err)
	}
	tmp := name + ".tmp-" + strconv.Itoa(os.Getpid())
	if err := root.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("embed transcript: write: %w", err)
	}
	if err := root.Rename(tmp, name); err != nil {
		_ = root.Remove(tmp)
		return fmt.Errorf("embed transcript: rename: %w", err)
	}
	return nil
}

// readTranscript reads name, or starts a new transcript when it is
// missing, not a regular file, too large or not a transcript.
func readTranscript(root *os.Root, name, clientID string) Transcript {
	fresh := Transcript{Version: 1, ClientID: clientID, Origin: "embed", Turns: []TranscriptTurn{}}
	info, err := root.Lstat(name)
	if err != nil || !info.Mode().IsRegular() {
		return fresh
	}
	f, err := root.Open(name)
	if err != nil {
		return fresh
	}
	defer f.Close()
	data, err := readGzip(f, maxTranscriptBytes)
	if err != nil {
		return fresh
	}
	var tr Transcript
	if json.Unmarshal(data, &tr) != nil {
		return fresh
	}
	kept := fresh
	kept.UpdatedAt = tr.UpdatedAt
	for i, turn := range tr.Turns {
		if turn.Turn <= 0 {
			turn.Turn = i + 1
		}
		for j, e := range turn.Entries {
			if e.Role != "user" && e.Role != "assistant" && e.Role != "status" {
				turn.Entries[j].Role = "status"
			}
		}
		kept.Turns = append(kept.Turns, turn)
	}
	return kept
}

// errTooLarge is a transcript past maxTranscriptBytes.
var errTooLarge = errors.New("transcript too large")

// readGzip decompresses r, at most limit bytes.
func readGzip(r io.Reader, limit int64) ([]byte, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	data, err := io.ReadAll(io.LimitReader(zr, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, errTooLarge
	}
	return data, nil
}

// ReadTranscript reads the transcript of clientID under sessionsDir
// (fs.ErrNotExist when there is none): for tests and tools.
func ReadTranscript(sessionsDir, clientID string) (Transcript, error) {
	f, err := os.Open(filepath.Join(sessionsDir, transcriptDir, clientID+".json.gz"))
	if err != nil {
		return Transcript{}, err
	}
	defer f.Close()
	data, err := readGzip(f, maxTranscriptBytes)
	if err != nil {
		return Transcript{}, fmt.Errorf("transcript %s: %w", clientID, err)
	}
	var tr Transcript
	if err := json.Unmarshal(data, &tr); err != nil {
		return Transcript{}, fmt.Errorf("transcript %s: %w", clientID, err)
	}
	return tr, nil
}
