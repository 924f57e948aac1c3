package authn

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcphost/mcphost/host/config"
)

func sampleRecord(n int) *Record {
	return &Record{
		Resource:     "https://mcp.example.com/mcp",
		Issuer:       "https://as.example.com",
		AccessToken:  fmt.Sprintf("access-%d", n),
		RefreshToken: fmt.Sprintf("refresh-%d", n),
		ExpiresAt:    time.Date(2031, 1, 2, 3, 4, 5, 0, time.UTC),
		TokenType:    "Bearer",
		Scope:        "read write",
		ClientID:     "client-1",
		ClientSecret: "client-secret-1",
		TokenURL:     "https://as.example.com/token",
		AuthStyle:    1,
		Updated:      time.Date(2030, 6, 7, 8, 9, 10, 0, time.UTC),
	}
}

func TestFileStoreRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "mcp-auth.json")
	fs := &FileStore{Path: path}

	// No file yet: no record, no ids, no error.
	if rec, err := fs.Load("a"); rec != nil || err != nil {
		t.Fatalf("Load on a missing file = %v, %v; want nil, nil", rec, err)
	}
	if ids, err := fs.IDs(); len(ids) != 0 || err != nil {
		t.Fatalf("IDs on a missing file = %v, %v", ids, err)
	}
	if err := fs.Delete("a"); err != nil {
		t.Fatalf("Delete of no record: %v", err)
	}

	a, b := sampleRecord(1), sampleRecord(2)
	b.Resource = "https://other.example.com/mcp"
	if err := fs.Save("b", b); err != nil {
		t.Fatal(err)
	}
	if err := fs.Save("a", a); err != nil {
		t.Fatal(err)
	}
	// A second FileStore on the path (another process) sees the same.
	other := &FileStore{Path: path}
	for id, want := range map[string]*Record{"a": a, "b": b} {
		got, err := other.Load(id)
		if err != nil {
			t.Fatalf("Load(%s): %v", id, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Load(%s) = %+v\nwant %+v", id, got, want)
		}
	}
	if ids, err := other.IDs(); err != nil || !reflect.DeepEqual(ids, []string{"a", "b"}) {
		t.Errorf("IDs = %v, %v; want [a b]", ids, err)
	}

	// Save replaces one server's record and leaves the others alone.
	a2 := sampleRecord(3)
	if err := fs.Save("a", a2); err != nil {
		t.Fatal(err)
	}
	if got, _ := fs.Load("a"); got == nil || got.AccessToken != "access-3" {
		t.Errorf("after a second Save, Load(a) = %+v", got)
	}
	if got, _ := fs.Load("b"); !reflect.DeepEqual(got, b) {
		t.Errorf("Save(a) changed b: %+v", got)
	}

	if err := fs.Delete("a"); err != nil {
		t.Fatal(err)
	}
	if got, err := fs.Load("a"); got != nil || err != nil {
		t.Errorf("after Delete, Load(a) = %+v, %v", got, err)
	}
	if ids, _ := fs.IDs(); !reflect.DeepEqual(ids, []string{"b"}) {
		t.Errorf("after Delete, IDs = %v", ids)
	}

	// The format on disk is the documented one.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"version": 1`, `"servers": {`, `"b": {`, `"access_token": "access-2"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("token file lacks %s:\n%s", want, data)
		}
	}
}

func TestFileStoreModeIsPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp-auth.json")
	if err := os.WriteFile(path, []byte(`{"version":1,"servers":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	fs := &FileStore{Path: path}
	if err := fs.Save("a", sampleRecord(1)); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("token file mode = %v after Save, want 0600", st.Mode().Perm())
	}
	// And a file the store creates.
	fresh := filepath.Join(t.TempDir(), "new.json")
	if err := (&FileStore{Path: fresh}).Save("a", sampleRecord(1)); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(fresh); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("new token file: %v, %v; want mode 0600", st.Mode().Perm(), err)
	}
}

func TestFileStoreBadFileErrorsHideTokens(t *testing.T) {
	const secret = "tok-SECRET-4f1d"
	cases := map[string]struct {
		content string
		want    string
	}{
		"future version": {`{"version":2,"servers":{"a":{"access_token":"` + secret + `"}}}`, "has version 2"},
		"no version":     {`{"servers":{"a":{"access_token":"` + secret + `"}}}`, "has version 0"},
		"truncated":      {`{"version":1,"servers":{"a":{"access_token":"` + secret + `","refresh_token":`, "not valid JSON"},
		"garbage inside": {`{"version":1,"servers":{"a":{"access_token":"` + secret + `" ` + secret + `}}}`, "syntax error at byte"},
		"wrong type":     {`{"version":1,"servers":{"a":{"access_token":"x","expires_in":1,"scope":["` + secret + `"]}}}`, "wrong type"},
		"bad time":       {`{"version":1,"servers":{"a":{"access_token":"x","expires_at":"` + secret + `"}}}`, "not valid JSON"},
		"not an object":  {`"` + secret + `"`, "not valid JSON"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mcp-auth.json")
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			fs := &FileStore{Path: path}
			_, err := fs.Load("a")
			if err == nil {
				t.Fatal("Load succeeded on a bad token file")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %q should contain %q and the path", err, tc.want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error quotes the token: %q", err)
			}
			// Save refuses to overwrite a file it cannot read.
			if err := fs.Save("b", sampleRecord(1)); err == nil {
				t.Error("Save over an unreadable token file succeeded")
			} else if strings.Contains(err.Error(), secret) {
				t.Errorf("Save's error quotes the token: %q", err)
			}
			if data, _ := os.ReadFile(path); string(data) != tc.content {
				t.Error("the unreadable file was changed")
			}
		})
	}
}

// Two FileStores on one path are two processes: saves of different servers
// from many goroutines must all survive.
func TestFileStoreConcurrentSaves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp-auth.json")
	stores := []*FileStore{{Path: path}, {Path: path}}
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- stores[i%2].Save(fmt.Sprintf("srv-%02d", i), sampleRecord(i))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	ids, err := stores[0].IDs()
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != n {
		t.Fatalf("%d records after %d concurrent saves: %v", len(ids), n, ids)
	}
	for i := range n {
		rec, err := stores[1].Load(fmt.Sprintf("srv-%02d", i))
		if err != nil || rec == nil || rec.AccessToken != fmt.Sprintf("access-%d", i) {
			t.Errorf("srv-%02d: %+v, %v", i, rec, err)
		}
	}
}

func TestFileStoreLockSerializes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp-auth.json")
	a, b := &FileStore{Path: path}, &FileStore{Path: path}
	unlock, err := a.Lock()
	if err != nil {
		t.Fatal(err)
	}
	// The refresh lock is not the write lock: a Save inside it works.
	if err := b.Save("x", sampleRecord(1)); err != nil {
		t.Fatalf("Save while the refresh lock is held: %v", err)
	}
	got := make(chan struct{})
	go func() {
		u, err := b.Lock()
		if err != nil {
			t.Error(err)
		} else {
			u()
		}
		close(got)
	}()
	select {
	case <-got:
		t.Fatal("a second Lock got the refresh lock while the first held it")
	case <-time.After(50 * time.Millisecond):
		// Still waiting, as it should (a slow machine only makes this
		// wait longer, never makes the test fail wrongly).
	}
	unlock()
	<-got
}

func TestDescribe(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	path := filepath.Join(t.TempDir(), "mcp-auth.json")
	fs := &FileStore{Path: path}
	srv := func(id string) *config.Server {
		return &config.Server{ID: id, URL: "https://mcp.example.com/mcp", Transport: config.TransportHTTP}
	}
	live := sampleRecord(1)
	expired := sampleRecord(2)
	expired.ExpiresAt = now.Add(-time.Hour)
	dead := sampleRecord(3)
	dead.ExpiresAt, dead.RefreshToken = now.Add(-time.Hour), ""
	moved := sampleRecord(4)
	moved.Resource = "https://elsewhere.example.com/mcp"
	for id, r := range map[string]*Record{"live": live, "expired": expired, "dead": dead, "moved": moved} {
		if err := fs.Save(id, r); err != nil {
			t.Fatal(err)
		}
	}
	for id, want := range map[string]string{"live": "logged-in", "expired": "expired", "dead": "login-needed", "moved": "login-needed", "none": "not-logged-in"} {
		st := Describe(fs, srv(id), now)
		if st.State != want {
			t.Errorf("%s: state %q, want %q (%+v)", id, st.State, want, st)
		}
		if b := fmt.Sprintf("%+v", st); strings.Contains(b, "access-") || strings.Contains(b, "refresh-") || strings.Contains(b, "client-secret") {
			t.Errorf("%s: status shows a secret: %s", id, b)
		}
	}
	if st := Describe(fs, srv("live"), now); !st.Refreshable || st.ClientID != "client-1" || !reflect.DeepEqual(st.Scopes, []string{"read", "write"}) {
		t.Errorf("live: %+v", st)
	}
	bearer := srv("b")
	bearer.Auth = config.Auth{Type: config.AuthBearer, Token: "t"}
	if st := Describe(fs, bearer, now); st.State != "static" {
		t.Errorf("bearer: %+v", st)
	}
}
