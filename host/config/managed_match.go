package config

import (
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/mcphost/mcphost/pdk/glob"
)

// How a server rule of the managed layer matches a server.
//
// A rule matches what would run, not how it is spelled. A deny rule
// matches broadly, any spelling of it: a command by its base name, as
// written, cleaned or with its links followed; a URL with or without its
// default port, its path decoded and cleaned. An allow rule matches
// narrowly, only what it names: a bare command name ("npx") only a server
// that runs that name from the PATH (not a path to a file of that name,
// not with a PATH of its own in env), a path glob only the file the
// command is once links are followed.

// matchEnv is what a rule needs from the load to see what would run.
type matchEnv struct {
	workDir string // a relative command or cwd is taken from here
	path    string // the PATH a bare command is looked up in
}

func (r *resolved) matchEnv() matchEnv {
	p, _ := r.lookup("PATH")
	return matchEnv{workDir: r.workDir, path: p}
}

// matches: every field the rule sets matches s.
func (r ServerRule) matches(s *Server, env matchEnv) bool {
	if r.Registry != "" {
		return false // no server carries a registry name yet
	}
	deny := r.List == "denied_servers"
	if r.ID != "" && !glob.Match(r.ID, s.ID) {
		return false
	}
	if r.Command != "" && !commandMatches(r.Command, s, env, deny) {
		return false
	}
	if r.Args != nil && !matchArgs(r.Args, s.Args) {
		return false
	}
	if r.URL != "" && !urlMatches(r.URL, s.URL, deny) {
		return false
	}
	return true
}

func hasSeparator(s string) bool { return strings.ContainsAny(s, `/\`) }

func commandMatches(g string, s *Server, env matchEnv, deny bool) bool {
	if s.Command == "" {
		return false
	}
	ownPath, setsPath := serverPath(s)
	written, resolved := s.Command, resolveCommand(s, env, ownPath, setsPath)
	if !hasSeparator(g) {
		if !deny {
			return !hasSeparator(written) && !setsPath && glob.Match(g, written)
		}
		return glob.Match(g, written) || glob.Match(g, filepath.Base(written)) ||
			(resolved != "" && glob.Match(g, filepath.Base(resolved)))
	}
	if !deny {
		return resolved != "" && glob.Match(g, filepath.ToSlash(resolved))
	}
	for _, form := range []string{written, absCommand(s, env), resolved} {
		if form != "" && (glob.Match(g, form) || glob.Match(g, filepath.ToSlash(form))) {
			return true
		}
	}
	return false
}

// serverPath is the PATH the server's entry sets for itself, if it does.
func serverPath(s *Server) (string, bool) {
	for k, v := range s.Env {
		if k == "PATH" || (runtime.GOOS == "windows" && strings.EqualFold(k, "PATH")) {
			return v, true
		}
	}
	return "", false
}

// absCommand is a command given as a path, made absolute and clean ("" for
// a bare name).
func absCommand(s *Server, env matchEnv) string {
	c := s.Command
	if !hasSeparator(c) {
		return ""
	}
	if !filepath.IsAbs(c) {
		base := s.Cwd
		if base == "" {
			base = env.workDir
		} else if !filepath.IsAbs(base) {
			base = filepath.Join(env.workDir, base)
		}
		c = filepath.Join(base, c)
	}
	return filepath.Clean(c)
}

// resolveCommand is the file the command would run, its links followed:
// a path as it is, a bare name through the server's PATH (its own, else
// mcphost's). "" when it cannot be found; a path that does not exist is
// kept clean and absolute.
func resolveCommand(s *Server, env matchEnv, ownPath string, setsPath bool) string {
	file := absCommand(s, env)
	if file == "" {
		dirs := env.path
		if setsPath {
			dirs = ownPath
		}
		file = lookPath(s.Command, dirs)
		if file == "" {
			return ""
		}
	}
	if real, err := filepath.EvalSymlinks(file); err == nil {
		return real
	}
	return file
}

// lookPath finds a bare command in the directories of path, as the stdio
// transport does when it starts the server.
func lookPath(name, dirs string) string {
	exts := []string{""}
	if runtime.GOOS == "windows" {
		exts = []string{"", ".exe", ".cmd", ".bat"}
	}
	for _, dir := range filepath.SplitList(dirs) {
		if dir == "" {
			continue
		}
		for _, ext := range exts {
			p := filepath.Join(dir, name+ext)
			fi, err := os.Stat(p)
			if err != nil || fi.IsDir() || (runtime.GOOS != "windows" && fi.Mode()&0o111 == 0) {
				continue
			}
			if !filepath.IsAbs(p) {
				if abs, err := filepath.Abs(p); err == nil {
					p = abs
				}
			}
			return filepath.Clean(p)
		}
	}
	return ""
}

func matchArgs(globs, args []string) bool {
	for i, g := range globs {
		if g == "**" && i == len(globs)-1 {
			return true
		}
		if i >= len(args) || !glob.Match(g, args[i]) {
			return false
		}
	}
	return len(args) == len(globs)
}

// urlGlob is a url rule cut into its parts, so that a glob of the host
// cannot reach into the path ("https://*.corp.example/*" must not match
// https://attacker.example/.corp.example/).
type urlGlob struct{ scheme, host, path string }

// splitURLGlob cuts scheme://host/path; no path means any path.
func splitURLGlob(g string) (urlGlob, bool) {
	scheme, rest, ok := strings.Cut(g, "://")
	if !ok || scheme == "" || rest == "" {
		return urlGlob{}, false
	}
	host, p, hasPath := strings.Cut(rest, "/")
	if host == "" {
		return urlGlob{}, false
	}
	out := urlGlob{scheme: strings.ToLower(scheme), host: strings.ToLower(host), path: "*"}
	if hasPath {
		out.path = "/" + p
	}
	return out, true
}

// serverURL is a server's URL in the parts rules match: the scheme and
// host in lower case, the host without a trailing dot, the port only when
// it is not the scheme's default, the path decoded and cleaned.
type serverURL struct {
	scheme, host, hostPort, path, rawPath string
}

func parseServerURL(raw string) (serverURL, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return serverURL{}, false
	}
	out := serverURL{scheme: strings.ToLower(u.Scheme)}
	out.host = strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if strings.Contains(out.host, ":") {
		out.host = "[" + out.host + "]" // IPv6, as written in a URL
	}
	out.hostPort = out.host
	if port := u.Port(); port != "" {
		n, err := strconv.Atoi(port)
		if err != nil {
			return serverURL{}, false
		}
		if def := defaultPort(out.scheme); n != def {
			out.hostPort = out.host + ":" + strconv.Itoa(n)
		}
	}
	out.path = path.Clean("/" + u.Path)
	out.rawPath = u.EscapedPath()
	if out.rawPath == "" {
		out.rawPath = "/"
	}
	return out, true
}

func defaultPort(scheme string) int {
	switch scheme {
	case "http", "ws":
		return 80
	case "https", "wss":
		return 443
	}
	return -1
}

func urlMatches(g, raw string, deny bool) bool {
	rule, ok := splitURLGlob(g)
	if !ok || raw == "" {
		return false
	}
	u, ok := parseServerURL(raw)
	if !ok {
		// A URL that cannot be read cannot be shown to be allowed; a
		// deny rule for every URL still holds it.
		return deny && rule.host == "*"
	}
	if !glob.Match(rule.scheme, u.scheme) {
		return false
	}
	host := u.host
	if strings.Contains(rule.host, ":") {
		host = u.hostPort
	}
	if !glob.Match(rule.host, host) {
		return false
	}
	if glob.Match(rule.path, u.path) {
		return true
	}
	return deny && glob.Match(rule.path, u.rawPath)
}
