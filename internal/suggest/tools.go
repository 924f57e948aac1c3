package suggest

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Tool is what naming needs to know of one listed tool.
type Tool struct {
	Public  string // the public name (mcp__server__tool)
	Display string // server:tool
	Server  string // the server's id
	Tool    string // the name the server gives it
}

// ServerOf returns the server a tool name names, if it names one: "srv" in
// "srv:tool" and in "mcp__srv__tool" (the default naming scheme). The part
// is returned as typed; a shortened public name may hold only the start of
// a long id (see KnownServer).
func ServerOf(name string) (server string, ok bool) {
	if s, _, found := strings.Cut(name, ":"); found {
		return s, true
	}
	if rest, found := strings.CutPrefix(name, "mcp__"); found {
		s, _, _ := strings.Cut(rest, "__")
		return s, s != ""
	}
	return "", false
}

// KnownServer reports whether part names one of servers: it is an id, or,
// for a public name shortened to the length limit, the start of one.
func KnownServer(part string, servers []string, prefixOK bool) bool {
	for _, s := range servers {
		if s == part || (prefixOK && part != "" && strings.HasPrefix(s, part)) {
			return true
		}
	}
	return false
}

// UnknownServer says that server names no configured server, with the
// closest ids and the list of those there are.
func UnknownServer(server string, servers []string) string {
	servers = slices.DeleteFunc(slices.Clone(servers), func(s string) bool { return s == "" })
	msg := "unknown server " + showName(server)
	if p := Phrase(Closest(server, servers)); p != "" {
		msg += "; " + p
	}
	switch {
	case len(servers) == 0:
		msg += " (no servers are configured)"
	case len(servers) <= 20:
		msg += " (configured: " + strings.Join(servers, ", ") + ")"
	default:
		msg += fmt.Sprintf(" (configured: %s and %d more)", strings.Join(servers[:20], ", "), len(servers)-20)
	}
	return msg
}

// UnknownTool says why name resolves to no tool: the server it names is
// not one of servers, or which names of tools come close. Suggestions
// are public names, or server:tool names when name was written that way.
// The message does not say where to look next: the caller adds that.
func UnknownTool(name string, tools []Tool, servers []string) string {
	if s, ok := ServerOf(name); ok && !KnownServer(s, servers, !strings.Contains(name, ":")) {
		msg := "tool " + strconv.Quote(name) + ": " + UnknownServer(s, servers)
		if p := Phrase(closestTool(name, tools)); p != "" {
			msg += "; or a tool: " + p
		}
		return msg
	}
	msg := "unknown tool " + strconv.Quote(name)
	if p := Phrase(closestTool(name, tools)); p != "" {
		msg += "; " + p
	}
	return msg
}

// closestTool compares name with every public name and every name the
// servers use (for "srv:tol", the server:tool names, and "tol" with the
// names of srv's tools), and returns what to write instead.
func closestTool(name string, tools []Tool) []string {
	srv, part, display := strings.Cut(name, ":")
	var cands []candidate
	for _, t := range tools {
		if display {
			cands = append(cands, candidate{name, t.Display, t.Display})
			if t.Server == srv && part != "" {
				cands = append(cands, candidate{part, t.Tool, t.Display})
			}
			continue
		}
		cands = append(cands, candidate{name, t.Public, t.Public}, candidate{name, t.Tool, t.Public})
	}
	return closest(cands)
}

var plainName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// showName writes a typed name bare when it is plainly a name, quoted
// (escaped) otherwise.
func showName(s string) string {
	if plainName.MatchString(s) {
		return s
	}
	return strconv.Quote(s)
}
