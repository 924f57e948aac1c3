package plugins

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcphost/mcphost/internal/testenv"
	"github.com/mcphost/mcphost/pdk/abi"
)

const testSecret = "s3cr3t-value-that-must-not-leak"

// openProbe loads the probe fixture (policy = mcphost_secret, filter_tools
// = mcphost_log, auth = mcphost_http) with its log captured.
func openProbe(t *testing.T, edit func(*Spec)) (*Plugin, *testenv.Buffer) {
	t.Helper()
	s := spec("probe", "probe")
	s.Secrets = Secrets{"token": testSecret}
	// The probe copies its input a byte per host call: slow, not hostile.
	s.Limits.Timeout = 10 * time.Second
	if edit != nil {
		edit(s)
	}
	opts, lb := testOptions(t)
	p, err := Open(ctx(t), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p, lb
}

func invoke(t *testing.T, p *Plugin, hook abi.Hook, input string) string {
	t.Helper()
	res, err := p.Invoke(ctx(t), hook, []byte(input))
	if err != nil {
		t.Fatalf("%s(%.60q): %v", hook, input, err)
	}
	return string(res.Output)
}

func TestHostSecret(t *testing.T) {
	p, lb := openProbe(t, nil)
	if got := invoke(t, p, abi.HookPolicy, "token"); got != testSecret {
		t.Fatalf("granted secret: %q", got)
	}
	for _, name := range []string{"other", "", "TOKEN", strings.Repeat("t", 1000)} {
		if got := invoke(t, p, abi.HookPolicy, name); got != "<none>" {
			t.Errorf("secret %q: got %q", name, got)
		}
	}
	if strings.Contains(lb.String(), testSecret) {
		t.Fatalf("the log shows the secret:\n%s", lb)
	}
}

func TestHostLog(t *testing.T) {
	p, lb := openProbe(t, nil)
	invoke(t, p, abi.HookFilterTools, "hello from the guest\n2026-01-01 [ERROR] forged line\x1b[31m")
	log := lb.String()
	if !strings.Contains(log, `[INFO]  mcphost.probe: hello from the guest\n2026-01-01 [ERROR] forged line\x1b[31m: hook=filter_tools`) {
		t.Fatalf("log:\n%s", log)
	}
	if strings.Count(log, "\n") != 1 {
		t.Fatalf("the guest wrote more than one log line:\n%s", log)
	}
	invoke(t, p, abi.HookFilterTools, strings.Repeat("z", maxGuestMessage+100))
	if !strings.Contains(lb.String(), "bytes cut)") {
		t.Fatal("long message not cut")
	}
}

func httpRequest(t *testing.T, p *Plugin, req abi.HTTPRequest) abi.HTTPResponse {
	t.Helper()
	data, _ := json.Marshal(req)
	out := invoke(t, p, abi.HookAuth, string(data))
	var resp abi.HTTPResponse
	if err := json.Unmarshal([]byte(out), &resp); err != nil {
		t.Fatalf("response %q: %v", out, err)
	}
	return resp
}

func TestHostHTTP(t *testing.T) {
	var hits sync.Map
	target := newCountingServer(t, &hits, "target")
	other := newCountingServer(t, &hits, "other")
	otherURL, _ := url.Parse(other.URL)
	// A server on 127.0.0.1 that redirects to another host name (localhost).
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/same" {
			http.Redirect(w, r, target.URL+"/after", http.StatusFound)
			return
		}
		http.Redirect(w, r, "http://localhost:"+otherURL.Port()+"/stolen", http.StatusFound)
	}))
	defer redirect.Close()
	big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("b", maxHTTPBody+10)))
	}))
	defer big.Close()

	p, _ := openProbe(t, func(s *Spec) {
		s.AllowedHosts = []string{"127.0.0.1"}
		s.AllowPrivate = true
	})
	resp := httpRequest(t, p, abi.HTTPRequest{URL: target.URL + "/token", Headers: map[string]string{"X-A": "b"}})
	if resp.Error != "" || resp.Status != 200 || string(resp.Body) != "ok" || resp.Headers["x-test"] != "yes" {
		t.Fatalf("allowed request: %+v", resp)
	}
	resp = httpRequest(t, p, abi.HTTPRequest{Method: "POST", URL: redirect.URL + "/same", Body: []byte("x")})
	if resp.Error != "" || resp.Status != 200 {
		t.Fatalf("redirect on an allowed host: %+v", resp)
	}
	before := count(&hits, "other")
	resp = httpRequest(t, p, abi.HTTPRequest{URL: redirect.URL + "/away"})
	if !strings.Contains(resp.Error, `redirect refused: host "localhost" is not in allowed_hosts`) || count(&hits, "other") != before {
		t.Fatalf("redirect to another host: %+v", resp)
	}
	resp = httpRequest(t, p, abi.HTTPRequest{URL: other.URL[:len("http://")] + "localhost:" + otherURL.Port()})
	if !strings.Contains(resp.Error, `host "localhost" is not in allowed_hosts`) || count(&hits, "other") != before {
		t.Fatalf("host not allowed: %+v", resp)
	}
	resp = httpRequest(t, p, abi.HTTPRequest{URL: big.URL})
	if !strings.Contains(resp.Error, "response body over") {
		t.Fatalf("big body: %+v", resp)
	}
	for _, bad := range []string{`{"url": 3}`, `{"url":"x","extra":1}`, `not json`, `{"url":"ftp://127.0.0.1/x"}`, `{"url":"http://u:p@127.0.0.1/"}`, `{"method":"GE T","url":"http://127.0.0.1/"}`, `{"url":"http://127.0.0.1/","headers":{"X":"a\r\nB: c"}}`} {
		out := invoke(t, p, abi.HookAuth, bad)
		var r abi.HTTPResponse
		if err := json.Unmarshal([]byte(out), &r); err != nil || r.Error == "" || r.Status != 0 {
			t.Errorf("bad request %s: %s", bad, out)
		}
	}
	// None of that cost an instance: mcphost_http never traps.
	if st := p.Stats(); st.InstancesDiscarded != 0 || st.Faults != 0 {
		t.Fatalf("stats %+v", st)
	}

	// Without allow_private: no plain http, no loopback address even for an
	// allowed name.
	strict, _ := openProbe(t, func(s *Spec) { s.AllowedHosts = []string{"localhost", "127.0.0.1"} })
	resp = httpRequest(t, strict, abi.HTTPRequest{URL: target.URL})
	if !strings.Contains(resp.Error, "plain http is refused") {
		t.Fatalf("plain http: %+v", resp)
	}
	resp = httpRequest(t, strict, abi.HTTPRequest{URL: "https://localhost:" + otherURL.Port() + "/"})
	if !strings.Contains(resp.Error, "private, loopback or reserved address") {
		t.Fatalf("loopback: %+v", resp)
	}
	// No allowed hosts at all.
	none, _ := openProbe(t, nil)
	resp = httpRequest(t, none, abi.HTTPRequest{URL: "https://example.org/"})
	if !strings.Contains(resp.Error, "allowed_hosts is empty") {
		t.Fatalf("no hosts: %+v", resp)
	}
}

// A name that resolves to a private address is refused when the connection
// is made (DNS rebinding), whatever the allow list says.
func TestHTTPGuardChecksResolvedAddress(t *testing.T) {
	var dialed []string
	g := &httpGuard{allowed: []string{"*.example.com"}}
	g.resolve = func(_ context.Context, _, host string) ([]netip.Addr, error) {
		dialed = append(dialed, host)
		return []netip.Addr{netip.MustParseAddr("10.1.2.3"), netip.MustParseAddr("::ffff:127.0.0.1"), netip.MustParseAddr("169.254.169.254")}, nil
	}
	resp := g.do(context.Background(), g.client(), &abi.HTTPRequest{URL: "https://rebind.example.com/x"})
	if !strings.Contains(resp.Error, "rebind.example.com resolves to") || !strings.Contains(resp.Error, "private, loopback or reserved") {
		t.Fatalf("resp %+v", resp)
	}
	if len(dialed) != 1 {
		t.Fatalf("resolved %v", dialed)
	}
	resp = g.do(context.Background(), g.client(), &abi.HTTPRequest{URL: "https://example.com/x"})
	if !strings.Contains(resp.Error, `host "example.com" is not in allowed_hosts`) {
		t.Fatalf("apex: %+v", resp)
	}
	// A token in the query never shows in errors.
	resp = g.do(context.Background(), g.client(), &abi.HTTPRequest{URL: "http://a.example.com/x?token=" + testSecret})
	if strings.Contains(resp.Error, testSecret) || resp.Error == "" {
		t.Fatalf("query leaked: %+v", resp)
	}
}

func TestPublicAddr(t *testing.T) {
	for s, want := range map[string]bool{
		"8.8.8.8": true, "1.1.1.1": true, "2606:4700::1111": true,
		"127.0.0.1": false, "10.0.0.1": false, "172.16.5.4": false, "192.168.1.1": false,
		"169.254.169.254": false, "100.64.0.1": false, "0.0.0.0": false, "255.255.255.255": false,
		"::1": false, "fe80::1": false, "fc00::1": false, "::ffff:10.0.0.1": false, "::ffff:8.8.8.8": true,
		"64:ff9b::a00:1": false, "2002:a00:1::": false, "224.0.0.1": false, "198.18.0.1": false,
	} {
		if got := publicAddr(netip.MustParseAddr(s)); got != want {
			t.Errorf("%s: %v, want %v", s, got, want)
		}
	}
}

func TestNoHTTPForNonAuthPlugins(t *testing.T) {
	// all-hooks has auth; limited to policy it gets no mcphost_http, and
	// allowed_hosts is refused.
	p := open(t, "all-hooks", func(s *Spec) { s.Hooks = []abi.Hook{abi.HookPolicy} })
	if p.client != nil {
		t.Fatal("a policy-only plugin has an HTTP client")
	}
	opts, _ := testOptions(t)
	s := spec("x", "all-hooks")
	s.Hooks = []abi.Hook{abi.HookPolicy}
	s.AllowedHosts = []string{"a.example"}
	_, err := Open(ctx(t), s, opts)
	wantError(t, err, KindLoad, "allowed_hosts is set but the plugin has no auth hook")
}

// A request the guest waits for ends at the call's deadline: the watchdog
// stops only a running guest, so the host function carries the deadline.
func TestHostHTTPEndsAtTimeout(t *testing.T) {
	release := make(chan struct{})
	stall := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer stall.Close()
	defer close(release)
	p, _ := openProbe(t, func(s *Spec) {
		s.AllowedHosts = []string{"127.0.0.1"}
		s.AllowPrivate = true
		s.Limits.Timeout = 200 * time.Millisecond
	})
	type outcome struct {
		res *Result
		err error
	}
	done := make(chan outcome, 1)
	start := time.Now()
	go func() {
		data, _ := json.Marshal(abi.HTTPRequest{URL: stall.URL})
		res, err := p.Invoke(context.Background(), abi.HookAuth, data)
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		// The HTTP client's own timeout would also end the call, 75 times
		// later: that is the failure this test is for.
		if took := time.Since(start); took >= httpTimeout {
			t.Fatalf("the call took %s: the request did not end at timeout_ms", took)
		}
		// Either the request failed at the call's deadline and the guest
		// returned that answer, or the guest was stopped on its way out;
		// not the HTTP client's own, much longer, timeout.
		if o.err != nil {
			if !strings.Contains(o.err.Error(), "exceeded timeout_ms 200") {
				t.Fatalf("err = %v", o.err)
			}
			return
		}
		var resp abi.HTTPResponse
		if err := json.Unmarshal(o.res.Output, &resp); err != nil || !strings.Contains(resp.Error, "deadline exceeded") || strings.Contains(resp.Error, "Client.Timeout") {
			t.Fatalf("response %s (%v): want the call's deadline", o.res.Output, err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the call outlived its timeout_ms while waiting for an HTTP answer")
	}
}
