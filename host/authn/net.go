package authn

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sync"
	"syscall"
	"time"

	"github.com/mcphost/mcphost/host/config"
)

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// serverNet is where an MCP server is, as far as its addresses tell.
type serverNet int

const (
	netPublic   serverNet = iota
	netPrivate            // every address private (or loopback)
	netLoopback           // every address loopback
)

// classify looks at every address of host: a name with one public
// address is public, so that a server cannot unlock the intranet by
// adding a private record to its own name.
func classify(host string) serverNet {
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		ips, _ = net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	}
	if len(ips) == 0 {
		return netPublic
	}
	class := netLoopback
	for _, ip := range ips {
		ip = ip.Unmap()
		switch {
		case ip.IsLoopback():
		case ip.IsPrivate() || cgnat.Contains(ip):
			class = min(class, netPrivate)
		default:
			return netPublic
		}
	}
	return class
}

// guardedTransport refuses connections to addresses that a server has no
// business pointing mcphost at (SSRF through discovery metadata):
// link-local (cloud metadata services), multicast and unspecified always;
// private and CGNAT ranges unless the MCP server itself is on a private
// network; loopback unless the server is on this machine. Behind a proxy
// the proxy decides (the dial goes to it).
func guardedTransport(base http.RoundTripper, serverURL string) http.RoundTripper {
	t, ok := base.(*http.Transport)
	if !ok || t.DialContext != nil || t.DialTLSContext != nil {
		return base // the embedder took over dialing
	}
	u, err := url.Parse(serverURL)
	if err != nil {
		return base
	}
	if t.Proxy != nil {
		if p, err := t.Proxy(&http.Request{URL: u}); err != nil || p != nil {
			return base
		}
	}
	var (
		once  sync.Once
		class serverNet
	)
	where := func() serverNet {
		once.Do(func() { class = classify(u.Hostname()) })
		return class
	}
	c := t.Clone()
	c.DialContext = (&net.Dialer{
		Timeout:   30 * time.Second,
		KeepAlive: 30 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			return checkDialAddr(address, where)
		},
	}).DialContext
	return c
}

// checkDialAddr is the guard's decision for one address ("ip:port").
func checkDialAddr(address string, where func() serverNet) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		host = address
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("authorization server address %q is not an IP", host)
	}
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback() && where() != netLoopback:
		return fmt.Errorf("refusing to contact %s for authorization: a loopback address, and the server is not on this machine", ip)
	case ip.IsLoopback():
		return nil
	case ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified():
		return fmt.Errorf("refusing to contact %s for authorization: a link-local or reserved address", ip)
	case (ip.IsPrivate() || cgnat.Contains(ip)) && where() == netPublic:
		return fmt.Errorf("refusing to contact %s for authorization: a private address, and the server is not on a private network", ip)
	}
	return nil
}

// withConfiguredEndpoints lets requests to the hosts of the endpoints the
// user configured (oauth.authorization_url, token_url, registration_url,
// idp_issuer, idp_token_url) bypass the guard: the user chose them, not
// the server.
func withConfiguredEndpoints(guarded, base http.RoundTripper, a config.Auth) http.RoundTripper {
	hosts := map[string]bool{}
	for _, raw := range []string{a.AuthorizationURL, a.TokenURL, a.RegistrationURL, a.IDPIssuer, a.IDPTokenURL} {
		if u, err := url.Parse(raw); err == nil && u.Host != "" {
			hosts[strings.ToLower(u.Host)] = true
		}
	}
	if len(hosts) == 0 {
		return guarded
	}
	return configuredBypass{guarded: guarded, base: base, hosts: hosts}
}

type configuredBypass struct {
	guarded, base http.RoundTripper
	hosts         map[string]bool
}

func (c configuredBypass) RoundTrip(req *http.Request) (*http.Response, error) {
	if c.hosts[strings.ToLower(req.URL.Host)] {
		return c.base.RoundTrip(req)
	}
	return c.guarded.RoundTrip(req)
}

// maxRedirects bounds the redirects of a request to an authorization server.
const maxRedirects = 5

// checkRedirect refuses what an authorization server has no reason to ask:
// redirecting a token, registration or revocation request (a POST, whose
// form holds credentials) anywhere, going from https to http, and long
// chains. Discovery's GETs may be redirected.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("more than %d redirects", maxRedirects)
	}
	if via[0].Method != http.MethodGet {
		return fmt.Errorf("the authorization server redirected a %s request; refused", via[0].Method)
	}
	if via[len(via)-1].URL.Scheme == "https" && req.URL.Scheme != "https" {
		return errors.New("a redirect from https to http; refused")
	}
	return nil
}

// guardClient is c with the discovery guard and the redirect rules.
func guardClient(c *http.Client, serverURL string, a config.Auth) *http.Client {
	out := *c
	base := out.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	out.Transport = withConfiguredEndpoints(guardedTransport(base, serverURL), base, a)
	if out.CheckRedirect == nil {
		out.CheckRedirect = checkRedirect
	}
	return &out
}

// asMetadata is what a login notes of its authorization server.
type asMetadata struct {
	Issuer             string `json:"issuer"`
	TokenEndpoint      string `json:"token_endpoint"`
	RevocationEndpoint string `json:"revocation_endpoint"`
}

// maxMetadataBytes bounds an authorization server's metadata document.
const maxMetadataBytes = 1 << 20

// metadataRecorder notes the authorization server metadata that go-sdk's
// discovery fetches during a login, so that the login can keep where its
// tokens are to be revoked.
type metadataRecorder struct {
	base http.RoundTripper
	h    *codeHandler
}

func (m *metadataRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := m.base.RoundTrip(req)
	if err != nil || req.Method != http.MethodGet || resp.StatusCode != http.StatusOK ||
		!(strings.Contains(req.URL.Path, "/.well-known/oauth-authorization-server") || strings.Contains(req.URL.Path, "/.well-known/openid-configuration")) {
		return resp, err
	}
	data, rerr := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes+1))
	resp.Body = readCloser{io.MultiReader(bytes.NewReader(data), resp.Body), resp.Body}
	if rerr != nil || len(data) > maxMetadataBytes {
		return resp, nil
	}
	var meta asMetadata
	if json.Unmarshal(data, &meta) == nil && meta.TokenEndpoint != "" {
		m.h.mu.Lock()
		if m.h.asMeta == nil {
			m.h.asMeta = map[string]asMetadata{}
		}
		if len(m.h.asMeta) < 16 {
			m.h.asMeta[meta.TokenEndpoint] = meta
		}
		m.h.mu.Unlock()
	}
	return resp, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}
