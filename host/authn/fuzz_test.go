package authn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/oauth2"
)

// fuzzSecret is a token in the seeds: no error may quote it.
const fuzzSecret = "SEKRET-tok-9b1c"

// The token file is read on every connect and may be damaged or edited by
// hand: whatever it holds, Load neither panics nor quotes a token, and a
// file it accepts stays writable and reads back the same.
func FuzzFileStoreRead(f *testing.F) {
	good, _ := json.Marshal(storeFile{Version: 1, Servers: map[string]*Record{"a": {
		Resource: "https://mcp.example.com/mcp", AccessToken: fuzzSecret, RefreshToken: fuzzSecret + "-r",
		ExpiresAt: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), ClientSecret: fuzzSecret + "-c",
	}}})
	for _, seed := range []string{
		string(good),
		strings.Replace(string(good), `"version":1`, `"version":7`, 1),
		string(good[:len(good)/2]),
		`{"version":1,"servers":{"a":{"access_token":"` + fuzzSecret + `" ` + fuzzSecret + `}}}`,
		`{"version":1,"servers":{"a":{"access_token":["` + fuzzSecret + `"]}}}`,
		`{"version":1,"servers":{"a":{"expires_at":"` + fuzzSecret + `"}}}`,
		`{"version":1,"servers":{"a":{"expires_at":"9999-12-31T23:59:59-23:59"}}}`,
		`{"version":1,"servers":{"a":null}}`,
		`{"version":1,"servers":null}`,
		`{"version":1}`,
		`null`, `[]`, `"` + fuzzSecret + `"`, ``, "\x00\xff\xfe",
	} {
		f.Add([]byte(seed))
	}
	path := filepath.Join(f.TempDir(), "mcp-auth.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		fs := &FileStore{Path: path}
		rec, err := fs.Load("a")
		if err != nil {
			if strings.Contains(err.Error(), fuzzSecret) {
				t.Fatalf("the error quotes a token: %v", err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("the error does not name the file: %v", err)
			}
			return
		}
		if _, err := fs.IDs(); err != nil {
			t.Fatalf("Load accepted the file, IDs did not: %v", err)
		}
		before, _ := json.Marshal(rec)
		if err := fs.Save("other", &Record{AccessToken: "x"}); err != nil {
			t.Fatalf("a file Load accepts cannot be written: %v", err)
		}
		again, err := fs.Load("a")
		if err != nil {
			t.Fatalf("the file Save wrote does not load: %v", err)
		}
		if after, _ := json.Marshal(again); string(after) != string(before) {
			t.Fatalf("record changed by a rewrite:\n%s\n%s", before, after)
		}
	})
}

// Whatever an authorization server answers, tokenRequest does not panic,
// a success has an access token (and an expiry in the future, if any),
// and a failure is a RetrieveError.
func FuzzTokenResponse(f *testing.F) {
	for _, s := range []struct {
		status int
		body   string
	}{
		{200, `{"access_token":"a","token_type":"Bearer","expires_in":3600,"scope":"x y"}`},
		{200, `{"access_token":"a","expires_in":"3600"}`},
		{200, `{"access_token":"a","expires_in":-5}`},
		{200, `{"access_token":"a","expires_in":9999999999}`},
		{200, `{"access_token":"a","expires_in":1e400}`},
		{200, `{"access_token":""}`},
		{200, `{"access_token":1}`},
		{200, `{"access_token":"a","error":"invalid_grant"}`},
		{200, `not json`},
		{200, ``},
		{201, `{"access_token":"a"}`},
		{400, `{"error":"invalid_grant","error_description":"expired","error_uri":"https://x"}`},
		{401, `{"error":"invalid_client"}`},
		{302, `{"access_token":"a"}`},
		{500, `<html>oops</html>`},
	} {
		f.Add(s.status, []byte(s.body))
	}
	var (
		mu     sync.Mutex
		status int
		body   []byte
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		st, b := status, body
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(st)
		w.Write(b)
	}))
	defer srv.Close()
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	g := &grantHandler{id: "fz", opts: Options{clock: func() time.Time { return now }}, client: &http.Client{}}
	f.Fuzz(func(t *testing.T, st int, b []byte) {
		st = 200 + ((st-200)%400+400)%400 // 200…599: a final answer httptest can send
		mu.Lock()
		status, body = st, b
		mu.Unlock()
		tok, err := g.tokenRequest(context.Background(), srv.URL+"/token", url.Values{"grant_type": {"client_credentials"}})
		if err != nil {
			var re *oauth2.RetrieveError
			if !errors.As(err, &re) {
				t.Fatalf("a failure that is not a RetrieveError: %v", err)
			}
			_ = describeRetrieveError(err).Error()
			return
		}
		if tok == nil || tok.AccessToken == "" {
			t.Fatalf("success without an access token: %+v", tok)
		}
		if st > 299 {
			t.Fatalf("success with status %d", st)
		}
		if !tok.Expiry.IsZero() && !tok.Expiry.After(now) {
			t.Fatalf("a new token expires at %v, before it was issued (%v)", tok.Expiry, now)
		}
	})
}

// callbackTags are the only tags of the callback's pages.
var callbackTags = strings.NewReplacer("<!doctype html>", "", "<title>", "", "</title>", "", "<h1>", "", "</h1>", "", "<p>", "", "</p>", "")

// requestTarget makes raw sendable as a query: bytes a request line cannot
// hold are percent-encoded, everything else (<, %, &, =, quotes) stays raw.
func requestTarget(raw string) string {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c <= ' ' || c >= 0x7f || c == '#' || c == ';' {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Whatever redirect reaches the loopback listener, the handler answers an
// HTML page that shows the input only escaped, and the first redirect
// with a code or an error is what receive returns.
func FuzzCallbackQuery(f *testing.F) {
	for _, seed := range []string{
		"code=abc&state=xyz&iss=https%3A%2F%2Fas.example.com",
		"error=access_denied&error_description=%3Cscript%3Ealert(1)%3C%2Fscript%3E",
		"error=<img src=x onerror=alert(1)>&error_description=<b>bold</b>",
		"error=%E2%9C%93&error_description=" + strings.Repeat("%C3%A9", 200),
		"error=x&error_description=a%0A<script>",
		"state=only", "", "code=", "code=%zz&error=%", "&&==&", "error=" + strings.Repeat("<", 300),
	} {
		f.Add(seed)
	}
	b := newBrowser()
	f.Fuzz(func(t *testing.T, raw string) {
		target := requestTarget(raw)
		want, _ := url.ParseQuery(target)
		var (
			lb  *loopback
			q   url.Values
			err error
		)
		for try := 0; ; try++ { // another fuzz worker may take the port
			if lb, err = newLoopback(0); err != nil {
				t.Fatal(err)
			}
			b.pages, b.status, b.headers = nil, nil, nil
			q, err = lb.receive(context.Background(), func() error {
				if err := b.get(lb.redirectURL() + "?" + target); err != nil {
					return err
				}
				return b.get(lb.redirectURL() + "?code=terminator")
			})
			if err == nil || !strings.Contains(err.Error(), "cannot listen") || try == 3 {
				break
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		if ct := b.headers[0].Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Fatalf("status %d, Content-Type %q: %q", b.status[0], ct, b.pages[0])
		}
		page := b.pages[0]
		if s := b.status[0]; s != 200 && s != 400 {
			t.Fatalf("status %d", s)
		}
		if rest := callbackTags.Replace(page); strings.Contains(rest, "<") {
			t.Fatalf("unescaped '<' in the page: %q", page)
		}
		if e, d := want.Get("error"), want.Get("error_description"); utf8.ValidString(e) && utf8.ValidString(d) && !utf8.ValidString(page) {
			t.Fatalf("the page is not UTF-8: %q", page)
		}
		first := want.Get("code") != "" || want.Get("error") != ""
		if first && (q.Get("code") != want.Get("code") || q.Get("error") != want.Get("error") || q.Get("state") != want.Get("state")) {
			t.Fatalf("receive returned %v, want the first redirect's %v", q, want)
		}
		if !first && (q.Get("code") != "terminator" || b.status[1] != 200) {
			t.Fatalf("a redirect without code or error ended the wait: %v", q)
		}
	})
}

// The secret file may be damaged or edited by hand: whatever it holds,
// reading it neither panics nor quotes a value, and a file it accepts
// stays writable and keeps its secrets.
func FuzzSecretFileRead(f *testing.F) {
	good, _ := json.Marshal(secretFileDoc{Version: 1, Secrets: map[string]string{"a": fuzzSecret, "b": fuzzSecret + "-b"}})
	for _, seed := range []string{
		string(good),
		strings.Replace(string(good), `"version":1`, `"version":7`, 1),
		string(good[:len(good)/2]),
		`{"version":1,"secrets":{"a":"` + fuzzSecret + `" ` + fuzzSecret + `}}`,
		`{"version":1,"secrets":{"a":["` + fuzzSecret + `"]}}`,
		`{"version":1,"secrets":{"a":1}}`,
		`{"version":1,"secrets":{"a":null}}`,
		`{"version":1,"secrets":null}`,
		`{"version":1}`,
		`null`, `[]`, `"` + fuzzSecret + `"`, ``, "\x00\xff\xfe",
	} {
		f.Add([]byte(seed))
	}
	path := filepath.Join(f.TempDir(), "secrets.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		sf := &SecretFile{Path: path}
		v, err := sf.Secret("a")
		if err != nil && !errors.Is(err, ErrNoSecret) {
			if strings.Contains(err.Error(), fuzzSecret) {
				t.Fatalf("the error quotes a secret: %v", err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("the error does not name the file: %v", err)
			}
			return
		}
		if err := sf.SetSecret("other", "x"); err != nil {
			t.Fatalf("a file Secret accepts cannot be written: %v", err)
		}
		again, err := sf.Secret("a")
		if again != v || (err == nil) != (v != "") {
			t.Fatalf("secret changed by a rewrite: %q, then %q %v", v, again, err)
		}
	})
}
