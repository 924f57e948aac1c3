package authn

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcphost/mcphost/host/config"
)

func TestStaticCredentials(t *testing.T) {
	req, _ := http.NewRequest(http.MethodPost, "https://mcp.example.com/mcp", nil)
	for _, tc := range []struct {
		auth         config.Auth
		header, want string
	}{
		{config.Auth{Type: config.AuthBearer, Token: "tok-1"}, "Authorization", "Bearer tok-1"},
		{config.Auth{Type: config.AuthAPIKey, Header: "X-Api-Key", Key: "key-1"}, "X-Api-Key", "key-1"},
	} {
		creds, err := New(&config.Server{ID: "s", URL: "https://mcp.example.com/mcp", Transport: config.TransportHTTP, Auth: tc.auth}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if creds.OAuth != nil || creds.Header == nil {
			t.Fatalf("%s: %+v", tc.auth.Type, creds)
		}
		h, err := creds.Header(req)
		if err != nil || h.Get(tc.header) != tc.want || len(h) != 1 {
			t.Errorf("%s: headers %v, %v; want %s: %s", tc.auth.Type, h, err, tc.header, tc.want)
		}
	}
	if creds, err := New(&config.Server{ID: "s", Auth: config.Auth{Type: config.AuthNone}}, Options{}); err != nil || creds.Header != nil || creds.OAuth != nil {
		t.Errorf("none: %+v, %v", creds, err)
	}
	if _, err := New(&config.Server{ID: "s", Auth: config.Auth{Type: "kerberos"}}, Options{}); err == nil || !strings.Contains(err.Error(), "kerberos") {
		t.Errorf("unknown type: %v", err)
	}
}

func TestTokenFileRereadsOnChange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	write := func(content string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	get := func(tf *tokenFile) string {
		t.Helper()
		h, err := tf.header(nil)
		if err != nil {
			t.Fatal(err)
		}
		return h.Get("Authorization")
	}
	write("tok-aaaa\n")
	creds, err := New(&config.Server{ID: "tf", URL: "https://mcp.example.com/mcp", Transport: config.TransportHTTP,
		Auth: config.Auth{Type: config.AuthTokenFile, TokenFile: path}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h, err := creds.Header(nil); err != nil || h.Get("Authorization") != "Bearer tok-aaaa" {
		t.Fatalf("New(token_file): %v, %v", h, err)
	}

	tf := newTokenFile("tf", path)
	if got := get(tf); got != "Bearer tok-aaaa" {
		t.Fatalf("first read: %q", got)
	}
	// A new size.
	write("  tok-bbbbbb  \n")
	if got := get(tf); got != "Bearer tok-bbbbbb" {
		t.Errorf("after a rewrite of another size: %q", got)
	}
	// The same size, another modification time.
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(path, base, base); err != nil {
		t.Fatal(err)
	}
	get(tf)
	write("  tok-cccccc  \n")
	if err := os.Chtimes(path, base.Add(time.Minute), base.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got := get(tf); got != "Bearer tok-cccccc" {
		t.Errorf("after a rewrite of the same size with a new mtime: %q", got)
	}
}

func TestTokenFileRefusesBadContent(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"empty":      "",
		"blank":      " \n\t\n",
		"two lines":  "tok-secret-1\ntok-secret-2\n",
		"cr":         "tok-secret-1\rtok-secret-2",
		"nul inside": "tok-secret\x001",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			h, err := newTokenFile("my-server", path).header(nil)
			if err == nil {
				t.Fatalf("accepted %q: %v", content, h)
			}
			msg := err.Error()
			if !strings.Contains(msg, `"my-server"`) || !strings.Contains(msg, "one token on one line") {
				t.Errorf("error %q should name the server and the rule", msg)
			}
			if strings.Contains(msg, "tok-secret") {
				t.Errorf("error %q shows the token", msg)
			}
		})
	}
	// Missing: the error names the server.
	if _, err := newTokenFile("my-server", filepath.Join(dir, "missing")).header(nil); err == nil || !strings.Contains(err.Error(), `"my-server"`) {
		t.Errorf("missing file: %v", err)
	}
	// A file that turns bad is an error, not the old token.
	path := filepath.Join(dir, "turns-bad")
	if err := os.WriteFile(path, []byte("tok-good\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tf := newTokenFile("my-server", path)
	if _, err := tf.header(nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("tok-good\nsecond line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if h, err := tf.header(nil); err == nil {
		t.Errorf("a file that turned bad still gives %v", h)
	}
}
