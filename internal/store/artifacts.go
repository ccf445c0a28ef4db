package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"path/filepath"
	"strings"

	"github.com/salve-dev/salve/internal/safefile"
)

// Artifact describes a named blob recorded under a run: a full build log,
// a heal's results.json… Its bytes live either in the database (Path
// empty) or in a file the artifact refers to (Path set).
type Artifact struct {
	RunID string `json:"run_id"`
	Name  string `json:"name"`
	// MediaType is guessed from Name's extension (text/plain for .log and
	// .txt, application/json for .json, application/octet-stream otherwise).
	MediaType string `json:"media_type"`
	// Size and SHA256 describe the bytes when they were recorded.
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	// Path is the absolute path of a file artifact; empty when inline.
	Path      string `json:"path,omitempty"`
	CreatedAt string `json:"created_at"`
}

// PutArtifact keeps data inside the database under (runID, name), replacing
// an artifact of the same name. Data larger than MaxArtifactBytes is refused
// with ErrTooLarge; record such files with [Store.PutArtifactFile].
func (s *Store) PutArtifact(ctx context.Context, runID, name string, data []byte) (Artifact, error) {
	if s.MaxArtifactBytes > 0 && len(data) > s.MaxArtifactBytes {
		return Artifact{}, fmt.Errorf("store: put artifact %s of %s: %d bytes: %w", name, runID, len(data), ErrTooLarge)
	}
	sum := sha256.Sum256(data)
	a := Artifact{RunID: runID, Name: name, MediaType: mediaType(name), Size: int64(len(data)),
		SHA256: hex.EncodeToString(sum[:]), CreatedAt: s.now()}
	if data == nil {
		data = []byte{}
	}
	return a, s.putArtifact(ctx, a, data, nil)
}

// PutArtifactFile records the file at path under (runID, name) by
// reference: the database keeps its absolute path, size and SHA-256, not
// its bytes. The file must exist; it is read once to hash it.
func (s *Store) PutArtifactFile(ctx context.Context, runID, name, path string) (Artifact, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Artifact{}, fmt.Errorf("store: put artifact %s of %s: %w", name, runID, err)
	}
	size, sum, err := hashFile(abs)
	if err != nil {
		return Artifact{}, fmt.Errorf("store: put artifact %s of %s: %w", name, runID, err)
	}
	a := Artifact{RunID: runID, Name: name, MediaType: mediaType(name), Size: size, SHA256: sum, Path: abs, CreatedAt: s.now()}
	return a, s.putArtifact(ctx, a, nil, abs)
}

func (s *Store) putArtifact(ctx context.Context, a Artifact, data []byte, path any) error {
	if a.Name == "" {
		return fmt.Errorf("store: put artifact of %s: empty name", a.RunID)
	}
	var blob any
	if data != nil {
		blob = data
	}
	_, err := s.q.ExecContext(ctx, `INSERT INTO artifacts(run_id, name, media_type, size, sha256, data, path, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(run_id, name) DO UPDATE SET media_type = excluded.media_type, size = excluded.size,
			sha256 = excluded.sha256, data = excluded.data, path = excluded.path, created_at = excluded.created_at`,
		a.RunID, a.Name, a.MediaType, a.Size, a.SHA256, blob, path, a.CreatedAt)
	if err != nil {
		return fmt.Errorf("store: put artifact %s of %s: %w", a.Name, a.RunID, err)
	}
	return nil
}

// Artifacts lists a run's artifacts by name, without their bytes.
func (s *Store) Artifacts(ctx context.Context, runID string) ([]Artifact, error) {
	rows, err := s.q.QueryContext(ctx, `SELECT run_id, name, media_type, size, sha256, COALESCE(path, ''), created_at
		FROM artifacts WHERE run_id = ? ORDER BY name`, runID)
	if err != nil {
		return nil, fmt.Errorf("store: artifacts of %s: %w", runID, err)
	}
	defer rows.Close()
	var out []Artifact
	for rows.Next() {
		var a Artifact
		if err := rows.Scan(&a.RunID, &a.Name, &a.MediaType, &a.Size, &a.SHA256, &a.Path, &a.CreatedAt); err != nil {
			return nil, fmt.Errorf("store: artifacts of %s: %w", runID, err)
		}
		out = append(out, a)
	}
	return out, rowsErr(rows, "artifacts of", runID)
}

// ArtifactData returns an artifact's description and bytes. For a file
// artifact the file is read now; if it changed since it was recorded the
// bytes are still returned, with an error saying the hash differs.
func (s *Store) ArtifactData(ctx context.Context, runID, name string) (Artifact, []byte, error) {
	var a Artifact
	var data []byte
	err := s.q.QueryRowContext(ctx, `SELECT run_id, name, media_type, size, sha256, COALESCE(path, ''), created_at, data
		FROM artifacts WHERE run_id = ? AND name = ?`, runID, name).
		Scan(&a.RunID, &a.Name, &a.MediaType, &a.Size, &a.SHA256, &a.Path, &a.CreatedAt, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return Artifact{}, nil, fmt.Errorf("store: artifact %s of %s: %w", name, runID, ErrNotFound)
	}
	if err != nil {
		return Artifact{}, nil, fmt.Errorf("store: artifact %s of %s: %w", name, runID, err)
	}
	if a.Path == "" {
		return a, data, nil
	}
	data, err = safefile.Read(a.Path, safefile.MaxLog)
	if err != nil {
		return a, nil, fmt.Errorf("store: artifact %s of %s: %w", name, runID, err)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != a.SHA256 {
		return a, data, fmt.Errorf("store: artifact %s of %s: file %s changed since it was recorded (sha256 %s, recorded %s)",
			name, runID, a.Path, got, a.SHA256)
	}
	return a, data, nil
}

func hashFile(path string) (int64, string, error) {
	f, err := safefile.Open(path, safefile.Options{})
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, "", err
	}
	if !st.Mode().IsRegular() {
		return 0, "", fmt.Errorf("%s is not a regular file", path)
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, "", fmt.Errorf("read %s: %w", path, err)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

var knownTypes = map[string]string{
	".log": "text/plain", ".txt": "text/plain", ".json": "application/json",
	".patch": "text/x-diff", ".diff": "text/x-diff", ".yaml": "application/yaml", ".yml": "application/yaml",
	".md": "text/markdown",
}

func mediaType(name string) string {
	ext := strings.ToLower(filepath.Ext(name))
	if t, ok := knownTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}
