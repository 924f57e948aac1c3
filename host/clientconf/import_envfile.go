package clientconf

import (
	"path/filepath"

	"github.com/mcphost/mcphost/host/config"
)

// envFile reads a client's env file setting (VS Code's and Cursor's
// envFile): a file of KEY=VALUE lines for a stdio server, which mcphost
// reads as env_file. A relative path is the client's, from the project
// directory; it is written absolute, so that it means the same file
// whichever scope the entry goes to.
func (r *entryReader) envFile(k string) {
	p, ok := r.value(k, true)
	if !ok || p == "" {
		return
	}
	if !filepath.IsAbs(p) && r.env.WorkDir != "" {
		p = filepath.Join(r.env.WorkDir, p)
	}
	r.im.Entry.EnvFile = p
	r.im.convertf("%s → env_file", k)
}

// clearEnvFile takes the env file out of a remote server's entry.
func (r *entryReader) clearEnvFile(e *config.ServerEntry) {
	if e.EnvFile != "" {
		r.im.drop("envFile", "a remote server gets no environment variables")
		e.EnvFile = ""
	}
}
