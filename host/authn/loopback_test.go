package authn

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// browser plays the user's browser: it GETs URLs on the loopback listener
// and keeps the answers.
type browser struct {
	client  *http.Client
	pages   []string
	status  []int
	headers []http.Header
}

func newBrowser() *browser {
	return &browser{client: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}}
}

func (b *browser) get(u string) error {
	resp, err := b.client.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	b.pages = append(b.pages, string(body))
	b.status = append(b.status, resp.StatusCode)
	b.headers = append(b.headers, resp.Header)
	return nil
}

func newTestLoopback(t *testing.T) *loopback {
	t.Helper()
	lb, err := newLoopback(0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(lb.redirectURL(), "http://127.0.0.1:") || !strings.HasSuffix(lb.redirectURL(), "/callback") {
		t.Fatalf("redirect URL %s", lb.redirectURL())
	}
	return lb
}

func TestLoopbackReceivesTheRedirect(t *testing.T) {
	lb := newTestLoopback(t)
	b := newBrowser()
	q, err := lb.receive(context.Background(), func() error {
		// Other paths and a redirect without a code do not end the wait.
		base := "http://127.0.0.1:" + strconv.Itoa(lb.port)
		for _, u := range []string{base + "/favicon.ico", lb.redirectURL() + "?state=s", lb.redirectURL() + "?code=the-code&state=st-1&iss=" + url.QueryEscape("https://as.example.com")} {
			if err := b.get(u); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if q.Get("code") != "the-code" || q.Get("state") != "st-1" || q.Get("iss") != "https://as.example.com" {
		t.Errorf("query = %v", q)
	}
	if b.status[0] != 404 || b.status[1] != 400 || !strings.Contains(b.pages[1], "No authorization code") {
		t.Errorf("favicon %d, no code %d %q", b.status[0], b.status[1], b.pages[1])
	}
	if b.status[2] != 200 || !strings.Contains(b.pages[2], "You can close this tab") {
		t.Errorf("callback page: %d %q", b.status[2], b.pages[2])
	}
	if ct := b.headers[2].Get("Content-Type"); ct != "text/html; charset=utf-8" || b.headers[2].Get("Cache-Control") != "no-store" {
		t.Errorf("headers = %v", b.headers[2])
	}
	// The listener is gone once the login is over.
	if err := b.get(lb.redirectURL() + "?code=late"); err == nil {
		t.Error("the callback listener still answers after receive returned")
	}
}

// ui is a UI whose user follows the authorization URL at once: the
// authorization server's redirect is played as query.
type redirectingUI struct {
	lb    *loopback
	query string
	b     *browser
	urls  []string
}

func (u *redirectingUI) Open(_ context.Context, id, authURL string) error {
	u.urls = append(u.urls, id+" "+authURL)
	return u.b.get(u.lb.redirectURL() + "?" + u.query)
}

func TestLoopbackErrorRedirect(t *testing.T) {
	lb := newTestLoopback(t)
	ui := &redirectingUI{lb: lb, b: newBrowser(),
		query: "error=access_denied&error_description=" + url.QueryEscape(`<script>alert("x")</script> & more`) + "&state=s"}
	h := &codeHandler{id: "srv", opts: Options{UI: ui}, lb: lb}
	res, err := h.fetch(context.Background(), &auth.AuthorizationArgs{URL: "https://as.example.com/authorize?x=1"})
	if err == nil {
		t.Fatalf("an error redirect gave %+v", res)
	}
	if msg := err.Error(); !strings.Contains(msg, "access_denied") || !strings.Contains(msg, `"srv"`) || !strings.Contains(msg, "refused the login") {
		t.Errorf("error = %q", msg)
	}
	if len(ui.urls) != 1 || ui.urls[0] != "srv https://as.example.com/authorize?x=1" {
		t.Errorf("UI.Open got %q", ui.urls)
	}
	page := ui.b.pages[0]
	if ui.b.status[0] != 400 || !strings.Contains(page, "Authorization failed") {
		t.Errorf("error page: %d %q", ui.b.status[0], page)
	}
	if strings.Contains(page, "<script>") || !strings.Contains(page, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; more") {
		t.Errorf("the description is not escaped: %q", page)
	}
}

func TestCodeHandlerFetchSuccess(t *testing.T) {
	lb := newTestLoopback(t)
	ui := &redirectingUI{lb: lb, b: newBrowser(), query: "code=c-42&state=st&iss=" + url.QueryEscape("https://as.example.com/")}
	h := &codeHandler{id: "srv", opts: Options{UI: ui}, lb: lb}
	res, err := h.fetch(context.Background(), &auth.AuthorizationArgs{URL: "https://as.example.com/authorize"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != "c-42" || res.State != "st" || res.Iss != "https://as.example.com/" {
		t.Errorf("result = %+v", res)
	}
}

// receiverUI receives the redirect itself (an application's own route).
type receiverUI struct {
	opened bool
	q      url.Values
}

func (r *receiverUI) Open(context.Context, string, string) error { r.opened = true; return nil }
func (r *receiverUI) RedirectURL(id string) string               { return "myapp://callback/" + id }
func (r *receiverUI) Receive(_ context.Context, id string) (url.Values, error) {
	if !r.opened {
		return nil, errors.New("Receive before Open")
	}
	return r.q, nil
}

func TestCodeHandlerFetchWithCallbackReceiver(t *testing.T) {
	ui := &receiverUI{q: url.Values{"code": {"rc"}, "state": {"rs"}}}
	h := &codeHandler{id: "srv", opts: Options{UI: ui}}
	res, err := h.fetch(context.Background(), &auth.AuthorizationArgs{URL: "https://as.example.com/authorize"})
	if err != nil || res.Code != "rc" || res.State != "rs" {
		t.Errorf("fetch = %+v, %v", res, err)
	}
	ui.q = url.Values{"error": {"invalid_scope"}, "error_description": {"line 1\nline 2"}}
	if _, err := h.fetch(context.Background(), &auth.AuthorizationArgs{URL: "x"}); err == nil ||
		!strings.Contains(err.Error(), "invalid_scope: line 1") || strings.Contains(err.Error(), "line 2") {
		t.Errorf("error redirect: %v", err)
	}
}

func TestLoopbackPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	lb, err := newLoopback(port)
	if err != nil || lb.port != port {
		t.Fatalf("newLoopback(%d) = %+v, %v", port, lb, err)
	}
	opened := false
	_, err = lb.receive(context.Background(), func() error { opened = true; return nil })
	if err == nil {
		t.Fatal("listened on a port in use")
	}
	if !strings.Contains(err.Error(), "redirect_port") || !strings.Contains(err.Error(), strconv.Itoa(port)) {
		t.Errorf("error %q should name the port and redirect_port", err)
	}
	if opened {
		t.Error("the browser was sent to a callback nobody listens on")
	}
}

// A login that ends early (canceled, or the UI could not show the URL)
// frees its port at once: the retry with the same redirect_port listens.
func TestLoopbackCanceledAndOpenFailure(t *testing.T) {
	lb := newTestLoopback(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for i := range 20 {
		if _, err := lb.receive(ctx, func() error { return nil }); !errors.Is(err, context.Canceled) {
			t.Fatalf("canceled, try %d: %v", i, err)
		}
	}
	boom := errors.New("no browser")
	for i := range 20 {
		if _, err := lb.receive(context.Background(), func() error { return boom }); !errors.Is(err, boom) {
			t.Fatalf("open failed, try %d: %v", i, err)
		}
	}
}

func TestOneLine(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"first\nsecond", 100, "first"},
		{"first\r\nsecond", 100, "first"},
		{"abcdef", 3, "abc…"},
		{"ééé", 3, "é…"}, // not half an é
		{"aé", 2, "a…"},
	} {
		if got := oneLine(tc.in, tc.n); got != tc.want {
			t.Errorf("oneLine(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
