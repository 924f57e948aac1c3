package plugins

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/pdk/glob"
)

// mcphost_http: what auth plugins get instead of Extism's http_request
// (which follows redirects to any host and cannot refuse private
// addresses). Every request and every redirect is checked against the
// plugin's allowed_hosts; the address is checked when the connection is
// made, after name resolution, so a name that resolves to a private address
// (DNS rebinding) is refused too; no proxy from the environment is used,
// since it would connect on the plugin's behalf to hosts this check never
// sees. Bodies and time are bounded.

const (
	maxHTTPBody      = 1 << 20
	maxHTTPHeaders   = 64 << 10
	maxHTTPRedirects = 5
	httpTimeout      = 15 * time.Second
	dialTimeout      = 5 * time.Second
)

type httpGuard struct {
	allowed      []string // lower-case host-name globs (pdk/glob)
	allowPrivate bool
	// resolve is net.DefaultResolver.LookupNetIP; tests replace it.
	resolve func(ctx context.Context, network, host string) ([]netip.Addr, error)
}

func (g *httpGuard) client() *http.Client {
	d := &net.Dialer{Timeout: dialTimeout}
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            g.dial(d),
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    dialTimeout,
		ResponseHeaderTimeout:  httpTimeout,
		MaxResponseHeaderBytes: maxHTTPHeaders,
		MaxIdleConns:           4,
		IdleConnTimeout:        30 * time.Second,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   httpTimeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxHTTPRedirects {
				return fmt.Errorf("more than %d redirects", maxHTTPRedirects)
			}
			if err := g.checkURL(req.URL); err != nil {
				return fmt.Errorf("redirect refused: %w", err)
			}
			return nil
		},
	}
}

// checkURL applies the scheme and host rules to a URL.
func (g *httpGuard) checkURL(u *url.URL) error {
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !g.allowPrivate {
			return fmt.Errorf("%s: plain http is refused (use https, or set allow_private for a local server)", redact(u))
		}
	default:
		return fmt.Errorf("%s: scheme %q is not http or https", redact(u), u.Scheme)
	}
	if u.User != nil {
		return fmt.Errorf("%s: credentials in the URL are refused (send a header)", redact(u))
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "" {
		return fmt.Errorf("%s: no host", redact(u))
	}
	for _, g := range g.allowed {
		if glob.Match(g, host) {
			return nil
		}
	}
	if len(g.allowed) == 0 {
		return fmt.Errorf("host %q is not allowed (the plugin's allowed_hosts is empty)", host)
	}
	return fmt.Errorf("host %q is not in allowed_hosts", host)
}

// redact shows a URL without its query (which may carry a token).
func redact(u *url.URL) string {
	c := *u
	c.User = nil
	c.RawQuery, c.Fragment = "", ""
	return c.String()
}

func (g *httpGuard) dial(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		resolve := g.resolve
		if resolve == nil {
			resolve = net.DefaultResolver.LookupNetIP
		}
		ips, err := resolve(ctx, "ip", host)
		if err != nil {
			return nil, err
		}
		var lastErr error
		for _, ip := range ips {
			ip = ip.Unmap()
			if !g.allowPrivate && !publicAddr(ip) {
				lastErr = fmt.Errorf("%s resolves to %s, a private, loopback or reserved address (set allow_private to allow it)", host, ip)
				continue
			}
			// Dial the address that was checked, not the name: a second
			// resolution could give another answer.
			c, err := d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
			if err == nil {
				return c, nil
			}
			lastErr = err
		}
		if lastErr == nil {
			lastErr = fmt.Errorf("%s: no address", host)
		}
		return nil, lastErr
	}
}

var reservedPrefixes = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8",          // this network
		"100.64.0.0/10",      // carrier-grade NAT
		"192.0.0.0/24",       // IETF protocol assignments
		"192.0.2.0/24",       // documentation
		"198.18.0.0/15",      // benchmarking
		"198.51.100.0/24",    // documentation
		"203.0.113.0/24",     // documentation
		"240.0.0.0/4",        // reserved, and broadcast
		"64:ff9b::/96",       // NAT64: embeds an IPv4 address
		"64:ff9b:1::/48",     // local-use NAT64
		"100::/64",           // discard
		"2001:db8::/32",      // documentation
		"2002::/16",          // 6to4: embeds an IPv4 address
		"2001::/32",          // Teredo
		"fec0::/10",          // site-local (deprecated)
		"::ffff:0:0:0/96",    // IPv4-translated
		"2001:20::/28",       // ORCHIDv2
		"5f00::/16",          // segment routing
		"3fff::/20",          // documentation
		"::/128",             // unspecified
		"169.254.169.254/32", // cloud metadata (also link-local)
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// publicAddr reports whether ip is a global unicast address outside every
// private, loopback, link-local and reserved range.
func publicAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || !ip.IsGlobalUnicast() || ip.IsPrivate() || ip.IsLoopback() ||
		ip.IsLinkLocalUnicast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	for _, p := range reservedPrefixes {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

var methodPattern = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$")

// do performs one guarded request. It never returns nil.
func (g *httpGuard) do(ctx context.Context, client *http.Client, r *abi.HTTPRequest) *abi.HTTPResponse {
	refuse := func(err error) *abi.HTTPResponse { return &abi.HTTPResponse{Error: err.Error()} }
	method := strings.ToUpper(r.Method)
	if method == "" {
		method = http.MethodGet
	}
	if !methodPattern.MatchString(method) {
		return refuse(fmt.Errorf("bad method %q", guestText(r.Method)))
	}
	u, err := url.Parse(r.URL)
	if err != nil || !u.IsAbs() {
		return refuse(errors.New("the url is not an absolute URL"))
	}
	if err := g.checkURL(u); err != nil {
		return refuse(err)
	}
	if len(r.Body) > maxHTTPBody {
		return refuse(fmt.Errorf("request body over %d bytes", maxHTTPBody))
	}
	var body io.Reader
	if len(r.Body) > 0 {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return refuse(fmt.Errorf("bad request: %v", err))
	}
	for k, v := range r.Headers {
		if !validHeaderName(k) || !validHeaderValue(v) {
			return refuse(fmt.Errorf("bad header %q", guestText(k)))
		}
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return refuse(unwrapURLError(err))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxHTTPBody+1))
	if err != nil {
		return refuse(fmt.Errorf("reading the response: %v", unwrapURLError(err)))
	}
	if len(data) > maxHTTPBody {
		return refuse(fmt.Errorf("response body over %d bytes", maxHTTPBody))
	}
	out := &abi.HTTPResponse{Status: resp.StatusCode, Body: data}
	if len(resp.Header) > 0 {
		out.Headers = make(map[string]string, len(resp.Header))
		for k, v := range resp.Header {
			out.Headers[strings.ToLower(k)] = strings.Join(v, ", ")
		}
	}
	return out
}

// unwrapURLError drops net/url's `Get "URL": ` wrapper, whose URL may carry
// a token in its query.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

var tokenPattern = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$")

func validHeaderName(k string) bool { return tokenPattern.MatchString(k) }

// validHeaderValue refuses CR, LF and NUL (header injection) and other
// control characters but tab.
func validHeaderValue(v string) bool {
	if len(v) > 8<<10 {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if (c < 0x20 && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}
