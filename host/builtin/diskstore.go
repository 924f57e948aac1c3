package builtin

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcphost/mcphost/internal/safefile"
)

// DefaultResultTTL is how long a full result on disk stays readable.
const DefaultResultTTL = 24 * time.Hour

// maxDiskResults bounds the number of result files, whatever their size.
const maxDiskResults = 1000

// resultIDPattern is the form of every id Put makes: a crafted URI such as
// mcphost://results/../../x never names a file outside the directory.
var resultIDPattern = regexp.MustCompile(`^[0-9a-f]{24}$`)

// NewDiskResultStore makes a store that keeps full results as files in dir
// (made 0700; files 0600), so that a result truncated in one process can be
// read from the next: the CLI's mcphost call, then mcphost read. At most
// maxBytes in total (0: 64 MiB) and maxDiskResults files are kept, the
// oldest dropped first; a result older than ttl (0: DefaultResultTTL) is
// gone.
func NewDiskResultStore(dir string, maxBytes int, ttl time.Duration) (*ResultStore, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("builtin: result store: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, fmt.Errorf("builtin: result store: %w", err)
	}
	s := NewResultStore(maxBytes)
	s.dir = dir
	s.ttl = ttl
	if s.ttl <= 0 {
		s.ttl = DefaultResultTTL
	}
	return s, nil
}

// diskResult is a result file.
type diskResult struct {
	Server string          `json:"server"`
	Tool   string          `json:"tool"`
	Result json.RawMessage `json:"result"`
}

func (s *ResultStore) putDisk(id, server, tool string, result []byte) error {
	data, err := json.Marshal(diskResult{Server: server, Tool: tool, Result: result})
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.dir, ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), filepath.Join(s.dir, id+".json")); err != nil {
		return err
	}
	s.pruneDisk()
	return nil
}

type resultFile struct {
	id   string
	size int64
	mod  time.Time
}

// diskFiles lists the result files, oldest first, removing expired ones.
func (s *ResultStore) diskFiles() []resultFile {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil
	}
	var files []resultFile
	now := time.Now()
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !resultIDPattern.MatchString(id) {
			continue
		}
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if now.Sub(info.ModTime()) > s.ttl {
			os.Remove(filepath.Join(s.dir, e.Name()))
			continue
		}
		files = append(files, resultFile{id: id, size: info.Size(), mod: info.ModTime()})
	}
	slices.SortFunc(files, func(a, b resultFile) int { return a.mod.Compare(b.mod) })
	return files
}

// pruneDisk drops expired files, then the oldest until the store is within
// its bounds.
func (s *ResultStore) pruneDisk() {
	files := s.diskFiles()
	var total int64
	for _, f := range files {
		total += f.size
	}
	for len(files) > 0 && (total > int64(s.maxBytes) || len(files) > maxDiskResults) {
		os.Remove(filepath.Join(s.dir, files[0].id+".json"))
		total -= files[0].size
		files = files[1:]
	}
}

func (s *ResultStore) getDisk(id string) (*StoredResult, bool) {
	if !resultIDPattern.MatchString(id) {
		return nil, false
	}
	path := filepath.Join(s.dir, id+".json")
	if info, err := os.Stat(path); err != nil || time.Since(info.ModTime()) > s.ttl {
		return nil, false
	}
	data, err := safefile.ReadFile(path, int64(s.maxBytes)+4096)
	if err != nil {
		return nil, false
	}
	var r diskResult
	if err := json.Unmarshal(data, &r); err != nil || len(r.Result) == 0 {
		return nil, false
	}
	return &StoredResult{ID: id, Server: r.Server, Tool: r.Tool, JSON: r.Result}, true
}

func (s *ResultStore) listDisk() []StoredResult {
	var out []StoredResult
	for _, f := range s.diskFiles() {
		if r, ok := s.getDisk(f.id); ok {
			out = append(out, StoredResult{ID: r.ID, Server: r.Server, Tool: r.Tool})
		}
	}
	return out
}
