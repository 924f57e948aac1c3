package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// LoadOptions says where the configuration comes from. The zero value loads
// what the mcphost command would: the user's global file, the project files
// in the current directory and the process environment.
type LoadOptions struct {
	// GlobalDir holds the global (user) file config.{yaml,yml,json,toml},
	// the trust records and, under local/, the local file of each project
	// directory (ScopeLocal). Default: os.UserConfigDir()/mcphost (on Linux
	// $XDG_CONFIG_HOME/mcphost or ~/.config/mcphost). If that cannot be
	// determined, Load reads no global file.
	GlobalDir string
	// StateDir holds what mcphost keeps about files it edits, outside
	// them: the locks of its edits (under locks/), so that none is left
	// in a project, where it would be committed. Default: the user's state
	// directory (userdirs.State: $XDG_STATE_HOME/mcphost, else
	// ~/.local/state/mcphost), read from the process like GlobalDir's
	// default. If it cannot be determined, edits fail, saying so.
	StateDir string
	// ManagedDir holds the administrator's managed layer: managed.{yaml,
	// yml,json,toml} and the fragments in managed.d/. Default:
	// SystemManagedDir(). No environment variable moves it: a user must
	// not be able to step out of it. Tests and embedders that manage
	// their own policy set it.
	ManagedDir string
	// WorkDir is the project directory searched for .mcphost.* and .mcp.json,
	// and the key of the local file. Default: the current directory.
	WorkDir string
	// ConfigFile is a file given explicitly (--config FILE). It must exist;
	// its format comes from its extension. Servers from it are trusted: the
	// user named it.
	ConfigFile string
	// Environ is the environment as "KEY=value" strings, used for MCPHOST_*
	// variables and ${VAR} expansion. Default (nil): os.Environ(). Tests and
	// embedders pass their own so that loading does not depend on the process.
	Environ []string
	// Overrides is the highest layer, typically flag values, as koanf-style
	// keys: {"names.scheme": "tool", "servers.github.enabled": false}. Nested
	// maps are accepted too. Its servers get Source "flags".
	Overrides map[string]any
	// Secret resolves ${secret:NAME} references (the mcphost command reads
	// the OS keychain, where "mcphost secret set NAME" keeps them). Its
	// error should say how to store the secret and must never hold a value.
	// Each name is looked up at most once per Load. nil: a reference that
	// is used is an error of its server. Project files may not hold such
	// references at all, whatever Secret is.
	Secret func(name string) (string, error)
}

// resolved is LoadOptions with defaults applied and paths made absolute, so
// that Source, Files and trust records are stable whatever the cwd.
type resolved struct {
	managedDir string // the managed layer's directory
	globalDir  string // "" when unknown: no global layer
	stateDir   string // "": the process's user state directory
	workDir    string
	configFile string
	env        map[string]string
	overrides  map[string]any
	secret     func(string) (string, error) // nil: no secret store
	secrets    map[string]secretResult      // what secret returned, by name
	// warnings collects what reading and merging ignored (Config.Warnings).
	warnings []string
	// trustChanged: the project has a trust record for other contents
	// (Config.TrustChanged).
	trustChanged bool
}

func (r *resolved) warn(format string, args ...any) {
	r.warnings = append(r.warnings, fmt.Sprintf(format, args...))
}

func (o LoadOptions) resolve() (*resolved, error) {
	r := &resolved{overrides: o.Overrides, secret: o.Secret, managedDir: SystemManagedDir()}
	if o.ManagedDir != "" {
		d, err := filepath.Abs(o.ManagedDir)
		if err != nil {
			return nil, fmt.Errorf("config: managed dir: %w", err)
		}
		r.managedDir = d
	}
	if o.GlobalDir != "" {
		d, err := filepath.Abs(o.GlobalDir)
		if err != nil {
			return nil, fmt.Errorf("config: global dir: %w", err)
		}
		r.globalDir = d
	} else if d, err := os.UserConfigDir(); err == nil {
		r.globalDir = filepath.Join(d, "mcphost")
	}
	if o.StateDir != "" {
		d, err := filepath.Abs(o.StateDir)
		if err != nil {
			return nil, fmt.Errorf("config: state dir: %w", err)
		}
		r.stateDir = d
	}
	wd := o.WorkDir
	if wd == "" {
		d, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("config: work dir: %w", err)
		}
		wd = d
	}
	wd, err := filepath.Abs(wd)
	if err != nil {
		return nil, fmt.Errorf("config: work dir: %w", err)
	}
	r.workDir = wd
	if o.ConfigFile != "" {
		f, err := filepath.Abs(o.ConfigFile)
		if err != nil {
			return nil, fmt.Errorf("config: --config %s: %w", o.ConfigFile, err)
		}
		r.configFile = f
	}
	environ := o.Environ
	if environ == nil {
		environ = os.Environ()
	}
	r.env = make(map[string]string, len(environ))
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		r.env[k] = v
	}
	return r, nil
}

func (r *resolved) lookup(name string) (string, bool) {
	v, ok := r.env[name]
	return v, ok
}

type secretResult struct {
	value string
	err   error
}

// lookupSecret resolves a ${secret:NAME} reference, asking the store once
// per name: a keychain may prompt or be slow, and one secret is often used
// by several servers.
func (r *resolved) lookupSecret(name string) (string, error) {
	if r.secret == nil {
		return "", errNoSecretStore
	}
	if res, ok := r.secrets[name]; ok {
		return res.value, res.err
	}
	v, err := r.secret(name)
	if r.secrets == nil {
		r.secrets = map[string]secretResult{}
	}
	r.secrets[name] = secretResult{v, err}
	return v, err
}
