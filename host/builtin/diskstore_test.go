package builtin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcphost/mcphost/pdk/abi"
)

// A result kept by one store is read by another on the same directory (the
// next process), from files only its user can read; a crafted id names no
// file outside the directory; old results expire and the total is bounded.
func TestDiskResultStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "results")
	s1, err := NewDiskResultStore(dir, 1000, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	id := s1.Put("srv", "tool", []byte(`{"content":[{"type":"text","text":"full"}]}`))
	if id == "" {
		t.Fatal("no id")
	}
	s2, err := NewDiskResultStore(dir, 1000, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := s2.Get(ResultURIPrefix + id)
	if !ok || r.Server != "srv" || !strings.Contains(string(r.JSON), "full") {
		t.Fatalf("the next store: %+v, %v", r, ok)
	}
	if list := s2.List(); len(list) != 1 || list[0].ID != id {
		t.Fatalf("List = %+v", list)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v, want 0700", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(filepath.Join(dir, id+".json")); fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", fi.Mode().Perm())
	}
	// Path tricks name nothing.
	secret := filepath.Join(filepath.Dir(dir), "secret.json")
	os.WriteFile(secret, []byte(`{"server":"x","tool":"y","result":{"content":[]}}`), 0o600)
	for _, bad := range []string{"../secret", "..%2Fsecret", "", "/etc/passwd", strings.Repeat("a", 24) + "/../../secret"} {
		if _, ok := s2.Get(ResultURIPrefix + bad); ok {
			t.Errorf("Get(%q) found something", bad)
		}
	}
	// Expired results are gone.
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(filepath.Join(dir, id+".json"), old, old); err != nil {
		t.Fatal(err)
	}
	if _, ok := s2.Get(id); ok {
		t.Error("an expired result was read")
	}
	// The total is bounded: the oldest go first.
	var ids []string
	for i := 0; i < 5; i++ {
		ids = append(ids, s2.Put("s", "t", []byte(`{"content":[{"type":"text","text":"`+strings.Repeat("x", 300)+`"}]}`)))
		past := time.Now().Add(time.Duration(i-10) * time.Second)
		os.Chtimes(filepath.Join(dir, ids[i]+".json"), past, past)
	}
	if _, ok := s2.Get(ids[0]); ok {
		t.Error("the oldest result was kept past the store's size")
	}
	if _, ok := s2.Get(ids[4]); !ok {
		t.Error("the newest result was dropped")
	}
}

// A result larger than the whole store is not kept, and the marker says so
// instead of naming an empty id.
func TestTruncateNeverNamesAnEmptyID(t *testing.T) {
	store := NewResultStore(10)
	res, err := Truncate{MaxBytes: 5, Store: store}.TransformResult(context.Background(), &abi.TransformResultRequest{
		Server: "s", Tool: "t", Result: json.RawMessage(`{"content":[{"type":"text","text":"0123456789abcdef"}]}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(res.Result), ResultURIPrefix) {
		t.Fatalf("the marker names a result that was not kept: %s", res.Result)
	}
	if !strings.Contains(string(res.Result), "could not be kept") {
		t.Fatalf("the marker does not say the full result was not kept: %s", res.Result)
	}
}
