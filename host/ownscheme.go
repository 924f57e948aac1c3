package host

import (
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host/builtin"
)

// ownScheme is the scheme of mcphost's own resources (the full results of
// truncated calls): no server may list, serve or link anything under it,
// or it could answer reads of other servers' results, learn their ids and
// forge their contents.
const ownScheme = "mcphost"

// OwnURI reports whether uri is under mcphost:// in any letter case
// (schemes are case-insensitive, RFC 3986 3.1).
func OwnURI(uri string) bool {
	scheme, _, ok := strings.Cut(uri, ":")
	return ok && strings.EqualFold(scheme, ownScheme)
}

// OwnURITemplate reports whether a URI template could name a URI under
// mcphost://: its scheme is mcphost, or is not spelled out before the
// first expression and could be ("{+uri}", "mc{x}://...").
func OwnURITemplate(tmpl string) bool {
	literal := strings.ToLower(tmpl)
	if i := strings.IndexByte(literal, '{'); i >= 0 {
		literal = literal[:i]
	}
	if scheme, _, ok := strings.Cut(literal, ":"); ok {
		return scheme == ownScheme
	}
	return strings.HasPrefix(ownScheme, literal)
}

// withoutOwnResources drops, with a warning, what a server lists under
// mcphost://.
func (s *server) withoutOwnResources(res []*mcp.Resource, tmpls []*mcp.ResourceTemplate) ([]*mcp.Resource, []*mcp.ResourceTemplate) {
	keptR := res[:0:0]
	for _, r := range res {
		if r != nil && OwnURI(r.URI) {
			s.log.Warn("resource left out: mcphost:// names mcphost's own resources", "uri", r.URI)
			continue
		}
		keptR = append(keptR, r)
	}
	keptT := tmpls[:0:0]
	for _, t := range tmpls {
		if t != nil && OwnURITemplate(t.URITemplate) {
			// An mcphost gateway lists its full-result template: expected
			// of a chained mcphost, and left out as quietly.
			if t.URITemplate == builtin.ResultURIPrefix+"{id}" {
				s.log.Debug("resource template of an mcphost gateway left out: mcphost:// names this mcphost's own resources", "template", t.URITemplate)
			} else {
				s.log.Warn("resource template left out: it could name mcphost:// URIs, mcphost's own resources", "template", t.URITemplate)
			}
			continue
		}
		keptT = append(keptT, t)
	}
	return keptR, keptT
}

// withoutOwnLinks replaces, in a server's answer, every resource link and
// embedded resource under mcphost:// by a note: passed on, it would look
// like one of mcphost's own results. The note does not repeat the URI.
func withoutOwnLinks(serverID string, content []mcp.Content) []mcp.Content {
	var out []mcp.Content
	for i, c := range content {
		uri := ""
		switch c := c.(type) {
		case *mcp.ResourceLink:
			uri = c.URI
		case *mcp.EmbeddedResource:
			if c.Resource != nil {
				uri = c.Resource.URI
			}
		}
		if !OwnURI(uri) {
			if out != nil {
				out = append(out, c)
			}
			continue
		}
		if out == nil {
			// Copy on the first change: most answers have none.
			out = append(make([]mcp.Content, 0, len(content)), content[:i]...)
		}
		out = append(out, &mcp.TextContent{Text: fmt.Sprintf(
			"[mcphost: removed a resource from server %q under mcphost://, which names mcphost's own resources]", serverID)})
	}
	if out == nil {
		return content
	}
	return out
}

// withoutOwnContents replaces, in what a server answered for a read of
// uri, the contents it put under mcphost:// by a note under uri.
func withoutOwnContents(serverID, uri string, contents []*mcp.ResourceContents) {
	for i, c := range contents {
		if c != nil && OwnURI(c.URI) {
			contents[i] = &mcp.ResourceContents{URI: uri, MIMEType: "text/plain", Text: fmt.Sprintf(
				"[mcphost: removed contents from server %q under mcphost://, which names mcphost's own resources]", serverID)}
		}
	}
}

// ownURIError refuses to ask a server for a URI under mcphost://.
func ownURIError(serverID, uri string) error {
	return fmt.Errorf("host: resource %q: %w: mcphost:// names mcphost's own resources, which server %q cannot serve (read it without naming a server)", uri, ErrUnknownResource, serverID)
}
