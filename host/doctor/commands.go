package doctor

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/mcphost/mcphost/host/config"
)

// installHints say how to get the programs MCP servers are usually started
// with. The key is the command's base name without an extension.
var installHints = map[string]string{
	"node":    nodeHint,
	"npx":     nodeHint,
	"npm":     nodeHint,
	"pnpm":    "install pnpm (https://pnpm.io/installation: npm install -g pnpm, or corepack enable)",
	"yarn":    "install Yarn (https://yarnpkg.com: corepack enable, or npm install -g yarn)",
	"uv":      uvHint,
	"uvx":     uvHint,
	"python":  pythonHint,
	"python3": pythonHint,
	"pip":     pythonHint,
	"pip3":    pythonHint,
	"pipx":    "install pipx (https://pipx.pypa.io: apt install pipx, brew install pipx)",
	"docker":  "install Docker (https://docs.docker.com/get-docker/) and start it, or use Podman (alias docker=podman)",
	"podman":  "install Podman (https://podman.io/docs/installation)",
	"deno":    "install Deno (https://deno.com: curl -fsSL https://deno.land/install.sh | sh, or brew install deno)",
	"bun":     bunHint,
	"bunx":    bunHint,
	"go":      "install Go (https://go.dev/dl/)",
	"java":    "install a Java runtime (apt install default-jre, brew install openjdk)",
	"dotnet":  "install the .NET SDK (https://dotnet.microsoft.com/download)",
	"cargo":   "install Rust (https://rustup.rs)",
}

const (
	nodeHint   = "install Node.js, which brings node, npm and npx (https://nodejs.org; apt install nodejs npm, brew install node)"
	uvHint     = "install uv, which brings uvx (https://docs.astral.sh/uv/: curl -LsSf https://astral.sh/uv/install.sh | sh, or brew install uv, or pipx install uv)"
	pythonHint = "install Python 3 (https://www.python.org/downloads/; apt install python3 python3-pip, brew install python)"
	bunHint    = "install Bun (https://bun.sh: curl -fsSL https://bun.sh/install | bash, or brew install oven-sh/bun/bun)"
)

// interpreters: launchers that are scripts run by another program, which
// must be there too (npx without node fails with "env: node: No such file").
var interpreters = map[string]string{"npx": "node", "npm": "node", "pnpm": "node", "yarn": "node"}

// commandName is a command's base name without a Windows extension, to
// find its hint.
func commandName(command string) string {
	base := filepath.Base(command)
	switch strings.ToLower(filepath.Ext(base)) {
	case ".exe", ".cmd", ".bat":
		base = strings.TrimSuffix(base, filepath.Ext(base))
	}
	return base
}

// commandUse is one command as the servers run it: the same name in the
// same PATH (a server's env may set its own PATH).
type commandUse struct {
	command string
	path    string // the server's own PATH; "" for the host's
	hasPath bool
	cwd     string
	servers []string
	// trusted: at least one of the servers is not waiting for trust, so
	// a missing command stops something now.
	trusted bool
}

// checkCommands finds the program of every enabled stdio server, one check
// per distinct command, before anything is started: a missing one gets
// the way to install it.
func (r *Report) checkCommands(cfg *config.Config, opts Options) {
	uses := map[string]*commandUse{}
	var order []string
	for _, s := range cfg.Servers {
		// Untrusted servers too: the user will want them to work once
		// the project is trusted, and looking a name up runs nothing.
		if s.Err != nil || s.Blocked != "" || !s.Enabled || s.Transport != config.TransportStdio || s.Command == "" {
			continue
		}
		path, hasPath := s.Env["PATH"]
		key := s.Command + "\x00" + path + "\x00" + fmt.Sprint(hasPath)
		if strings.ContainsRune(s.Command, filepath.Separator) && !filepath.IsAbs(s.Command) {
			key += "\x00" + s.Cwd // a relative path is relative to the server's cwd
		}
		u := uses[key]
		if u == nil {
			u = &commandUse{command: s.Command, path: path, hasPath: hasPath, cwd: s.Cwd}
			uses[key] = u
			order = append(order, key)
		}
		u.servers = append(u.servers, s.ID)
		u.trusted = u.trusted || !s.Untrusted
	}
	sort.Strings(order)
	for _, key := range order {
		u := uses[key]
		who := "servers " + strings.Join(u.servers, ", ")
		if len(u.servers) == 1 {
			who = "server " + u.servers[0]
		}
		// What only untrusted servers need stops nothing yet.
		missing := Fail
		if !u.trusted {
			missing = Warn
			who += " (untrusted)"
		}
		found, err := u.find(u.command)
		if err != nil {
			r.add(Check{Kind: KindCommand, Subject: u.command, Status: missing,
				Message: fmt.Sprintf("%s (needed by %s)", err, who), Fix: commandFix(u.command)})
			continue
		}
		if found == u.command {
			found = "found"
		}
		msg := fmt.Sprintf("%s (used by %s)", found, who)
		if need, ok := interpreters[commandName(u.command)]; ok {
			if _, err := u.find(need); err != nil {
				r.add(Check{Kind: KindCommand, Subject: u.command, Status: missing,
					Message: fmt.Sprintf("%s, but %s, which runs it, is %s (needed by %s)", found, need, err, who), Fix: commandFix(need)})
				continue
			}
		}
		r.add(Check{Kind: KindCommand, Subject: u.command, Status: OK, Message: msg})
	}
}

// commandFix is the install hint of a missing command.
func commandFix(command string) string {
	if h, ok := installHints[commandName(command)]; ok {
		return h
	}
	if strings.ContainsRune(command, filepath.Separator) {
		return "fix the server's command: the file is not there or not executable"
	}
	return fmt.Sprintf("install %s, or give the server's command as a full path (or set PATH in the server's env)", command)
}

// find looks command up as the stdio transport does: a path with a
// separator relative to the server's cwd, a bare name in the server's own
// PATH when its env sets one (absolute entries only), else in the host's.
func (u *commandUse) find(command string) (string, error) {
	if strings.ContainsRune(command, filepath.Separator) {
		p := command
		if !filepath.IsAbs(p) && u.cwd != "" {
			p = filepath.Join(u.cwd, p)
		}
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			return "", fmt.Errorf("%s: no such file", p)
		case !fi.Mode().IsRegular():
			return "", fmt.Errorf("%s: not a regular file", p)
		case runtime.GOOS != "windows" && fi.Mode()&0o111 == 0:
			return "", fmt.Errorf("%s: not executable (chmod +x)", p)
		}
		return p, nil
	}
	if !u.hasPath {
		p, err := exec.LookPath(command)
		if err != nil {
			return "", fmt.Errorf("not found on PATH")
		}
		return p, nil
	}
	for _, dir := range filepath.SplitList(u.path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		for _, name := range candidates(command) {
			p := filepath.Join(dir, name)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && (runtime.GOOS == "windows" || fi.Mode()&0o111 != 0) {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("not found in the PATH the server's env sets")
}

// candidates are the file names a bare command may have.
func candidates(command string) []string {
	if runtime.GOOS != "windows" || filepath.Ext(command) != "" {
		return []string{command}
	}
	return []string{command + ".exe", command + ".cmd", command + ".bat", command}
}

// MissingCommand looks up the command of a stdio server s as it would be
// run (its cwd, its own PATH) and, when it or the interpreter that runs it
// is not there, says what is missing and how to install it; "" for a found
// command or a server that is not a stdio one. "mcphost mcp add" warns
// with it.
func MissingCommand(s *config.Server) (problem, fix string) {
	if s.Transport != config.TransportStdio || s.Command == "" {
		return "", ""
	}
	path, hasPath := s.Env["PATH"]
	u := &commandUse{command: s.Command, path: path, hasPath: hasPath, cwd: s.Cwd}
	if _, err := u.find(s.Command); err != nil {
		if strings.ContainsRune(s.Command, filepath.Separator) {
			return err.Error(), commandFix(s.Command) // the error names the file
		}
		return fmt.Sprintf("%s: %v", s.Command, err), commandFix(s.Command)
	}
	if need, ok := interpreters[commandName(s.Command)]; ok {
		if _, err := u.find(need); err != nil {
			return fmt.Sprintf("%s, which runs %s, is %v", need, s.Command, err), commandFix(need)
		}
	}
	return "", ""
}
