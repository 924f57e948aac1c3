// Package clientconf knows other MCP clients' configuration files: where
// each client keeps them, how to read their servers into mcphost entries
// (import), and how to add or remove the one entry that runs "mcphost
// serve" (install).
package clientconf

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcphost/mcphost/internal/userdirs"
)

// Kind names a client (or a format) by the word the CLI takes.
type Kind string

// The clients and formats mcphost reads.
const (
	ClaudeDesktop Kind = "claude-desktop"
	ClaudeCode    Kind = "claude-code"
	Cursor        Kind = "cursor"
	Windsurf      Kind = "windsurf"
	VSCode        Kind = "vscode"
	Codex         Kind = "codex"
	Gemini        Kind = "gemini"
	Zed           Kind = "zed"
	Goose         Kind = "goose"
	Codelia       Kind = "codelia"
	Beans         Kind = "beans"
	Tenx          Kind = "tenx"
)

// Kinds lists every kind, in the order the CLI documents them.
var Kinds = []Kind{ClaudeDesktop, ClaudeCode, Cursor, Windsurf, VSCode, Codex, Gemini, Zed, Goose, Codelia, Beans, Tenx}

// ParseKind turns a --from or client argument into a Kind.
func ParseKind(s string) (Kind, error) {
	k := Kind(strings.ToLower(strings.TrimSpace(s)))
	for _, known := range Kinds {
		if k == known {
			return k, nil
		}
	}
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k)
	}
	return "", fmt.Errorf("clientconf: unknown client %q (use one of %s)", s, strings.Join(names, ", "))
}

// Scope says whose file a location is: the user's (every project) or one
// project's (a file in the project directory, shared through the repository).
type Scope string

const (
	ScopeUser    Scope = "user"
	ScopeProject Scope = "project"
)

// Format is how a file is written.
type Format string

const (
	FormatJSON  Format = "json"  // strict JSON
	FormatJSONC Format = "jsonc" // JSON with comments and trailing commas (VS Code, Zed)
	FormatTOML  Format = "toml"
	FormatYAML  Format = "yaml"
)

// Env is what locating a client's files depends on. Tests set every field;
// DefaultEnv fills it from the process.
type Env struct {
	GOOS    string // "linux", "darwin", "windows"
	Home    string // the user's home directory
	WorkDir string // the project directory (absolute)
	// Getenv reads an environment variable (XDG_CONFIG_HOME, APPDATA,
	// CODEX_HOME); nil reads none.
	Getenv func(string) string
	// StateDir is the user's state directory for mcphost, where backups of
	// the files "client install" changes are kept (under backups/): not
	// beside a project's file, where they would be committed. "": from
	// XDG_STATE_HOME (Getenv) or Home (userdirs.State).
	StateDir string
}

// stateDir is StateDir, or the user's state directory as Getenv and Home
// say it is.
func (e Env) stateDir() (string, error) {
	if e.StateDir != "" {
		return e.StateDir, nil
	}
	return userdirs.State(e.getenv, e.Home, e.GOOS)
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// configHome is the directory Linux programs keep their settings in
// ($XDG_CONFIG_HOME, else ~/.config).
func (e Env) configHome() string {
	if d := e.getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(e.Home, ".config")
}

// appData is where desktop applications keep their settings: the
// platform's application-support directory.
func (e Env) appData() string {
	switch e.GOOS {
	case "darwin":
		return filepath.Join(e.Home, "Library", "Application Support")
	case "windows":
		if d := e.getenv("APPDATA"); d != "" {
			return d
		}
		return filepath.Join(e.Home, "AppData", "Roaming")
	}
	return e.configHome()
}

// Location is one file a client reads its servers from.
type Location struct {
	Kind   Kind
	Scope  Scope
	Path   string
	Format Format
}

// Locations lists the files kind reads, the user's first, then the
// project's; whether they exist is not checked.
func Locations(kind Kind, env Env) []Location {
	user := func(p string, f Format) Location { return Location{kind, ScopeUser, p, f} }
	project := func(p string, f Format) Location {
		return Location{kind, ScopeProject, filepath.Join(env.WorkDir, p), f}
	}
	switch kind {
	case ClaudeDesktop:
		return []Location{user(filepath.Join(env.appData(), "Claude", "claude_desktop_config.json"), FormatJSON)}
	case ClaudeCode:
		// ~/.claude.json holds the user's servers (mcpServers) and, under
		// projects[<abs dir>].mcpServers, each directory's private ones.
		return []Location{user(filepath.Join(env.Home, ".claude.json"), FormatJSON), project(".mcp.json", FormatJSON)}
	case Cursor:
		return []Location{user(filepath.Join(env.Home, ".cursor", "mcp.json"), FormatJSON), project(filepath.Join(".cursor", "mcp.json"), FormatJSON)}
	case Windsurf:
		return []Location{user(filepath.Join(env.Home, ".codeium", "windsurf", "mcp_config.json"), FormatJSON)}
	case VSCode:
		return []Location{
			user(filepath.Join(env.appData(), "Code", "User", "mcp.json"), FormatJSONC),
			user(filepath.Join(env.appData(), "Code", "User", "settings.json"), FormatJSONC),
			project(filepath.Join(".vscode", "mcp.json"), FormatJSONC),
		}
	case Codex:
		home := env.getenv("CODEX_HOME")
		if home == "" || !filepath.IsAbs(home) {
			home = filepath.Join(env.Home, ".codex")
		}
		return []Location{user(filepath.Join(home, "config.toml"), FormatTOML)}
	case Gemini:
		return []Location{user(filepath.Join(env.Home, ".gemini", "settings.json"), FormatJSONC), project(filepath.Join(".gemini", "settings.json"), FormatJSONC)}
	case Zed:
		dir := filepath.Join(env.Home, ".config", "zed") // macOS too
		switch {
		case env.GOOS == "windows":
			dir = filepath.Join(env.appData(), "Zed")
		case env.GOOS != "darwin":
			dir = filepath.Join(env.configHome(), "zed")
		}
		return []Location{user(filepath.Join(dir, "settings.json"), FormatJSONC), project(filepath.Join(".zed", "settings.json"), FormatJSONC)}
	case Goose:
		dir := filepath.Join(env.configHome(), "goose")
		switch env.GOOS {
		case "darwin":
			dir = filepath.Join(env.Home, ".config", "goose")
		case "windows":
			dir = filepath.Join(env.appData(), "Block", "goose", "config")
		}
		return []Location{user(filepath.Join(dir, "config.yaml"), FormatYAML)}
	case Codelia:
		// CODELIA_CONFIG_PATH names the user's file; CODELIA_LAYOUT=xdg
		// moves it to the XDG config directory.
		file := filepath.Join(env.Home, ".codelia", "config.json")
		switch p := env.getenv("CODELIA_CONFIG_PATH"); {
		case p != "" && filepath.IsAbs(p):
			file = p
		case env.getenv("CODELIA_LAYOUT") == "xdg":
			file = filepath.Join(env.configHome(), "codelia", "config.json")
		}
		return []Location{user(file, FormatJSON), project(filepath.Join(".codelia", "config.json"), FormatJSON)}
	case Beans:
		return []Location{user(filepath.Join(env.configHome(), "beans-agent", "mcp.json"), FormatJSON), project(filepath.Join(".beans", "mcp.json"), FormatJSON)}
	case Tenx:
		return []Location{project("mcp.json", FormatJSON)}
	}
	return nil
}

// KindNames lists the kinds as strings, sorted, for help texts.
func KindNames() []string {
	out := make([]string, len(Kinds))
	for i, k := range Kinds {
		out[i] = string(k)
	}
	sort.Strings(out)
	return out
}

// isWithin reports whether path is dir or lies below it (both resolved
// already: a symbolic link is not followed here).
func isWithin(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && filepath.IsLocal(rel)
}
