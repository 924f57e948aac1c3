package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/internal/safefile"
)

// The cache of tool names for shell completion: "mcphost call mcp__ev<TAB>"
// is answered from the last listing, kept on disk by tools, call and
// servers, since starting servers on every TAB would be slow and would run
// a project's commands behind the user's back.

const (
	completionCacheVersion = 1
	// What one cache file may hold: a listing of a few hundred servers'
	// tools fits; a file over the cap is ignored, as a corrupt one is.
	maxCompletionCacheBytes = 2 << 20
	maxCachedServers        = 256
	maxCachedTools          = 4000
	maxCachedNameBytes      = 128
	maxCachedDescRunes      = 80
	// Caches of this many configurations are kept; the oldest go first.
	maxCompletionCacheFiles = 64
)

// toolCache is one configuration's last listing, by server id.
type toolCache struct {
	Version int                     `json:"version"`
	Servers map[string][]cachedTool `json:"servers"`
}

type cachedTool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// userCacheDir is mcphost's directory in the user cache directory
// ($XDG_CACHE_HOME/mcphost, else ~/.cache/mcphost on Linux).
func (a *app) userCacheDir() (string, error) {
	if a.cacheDir != "" {
		return a.cacheDir, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "mcphost"), nil
}

// completionCacheFile is the cache file of the configuration this command
// line reads: its key is what decides which servers and names there are
// (the user config directory, the project directory, --config, the naming
// flags), so a project is never offered another's tools.
func (a *app) completionCacheFile() (string, error) {
	dir, err := a.userCacheDir()
	if err != nil {
		return "", err
	}
	global := a.globalDir
	if global == "" {
		if d, err := os.UserConfigDir(); err == nil {
			global = filepath.Join(d, "mcphost")
		}
	}
	work := a.workDir
	if work == "" {
		if work, err = os.Getwd(); err != nil {
			return "", err
		}
	}
	key := []string{"v1", absOr(global), absOr(work), "", a.nameScheme, strconv.Itoa(a.maxNameLength)}
	if a.configFile != "" {
		key[3] = absOr(a.configFile)
	}
	sum := sha256.Sum256([]byte(strings.Join(key, "\x00")))
	return filepath.Join(dir, "completion", "tools-"+hex.EncodeToString(sum[:8])+".json"), nil
}

func absOr(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// readToolCache reads the cache of this configuration; a missing, corrupt,
// oversized or foreign-version file is no cache.
func (a *app) readToolCache() toolCache {
	path, err := a.completionCacheFile()
	if err != nil {
		return toolCache{}
	}
	data, err := safefile.ReadFile(path, maxCompletionCacheBytes)
	if err != nil {
		return toolCache{}
	}
	var c toolCache
	if json.Unmarshal(data, &c) != nil || c.Version != completionCacheVersion {
		return toolCache{}
	}
	return c
}

// rememberTools writes the tools of h's ready servers into the cache of
// this configuration, over what the cache said of those servers; the
// others' entries stay (a call starts only its tool's server). A failure
// is only logged: the cache serves completion, never the command.
func (a *app) rememberTools(h *host.Host) {
	if err := a.writeToolCache(h); err != nil {
		a.log.Debug("completion cache not written", "error", err)
	}
}

func (a *app) writeToolCache(h *host.Host) error {
	path, err := a.completionCacheFile()
	if err != nil {
		return err
	}
	c := a.readToolCache()
	if c.Servers == nil {
		c.Servers = map[string][]cachedTool{}
	}
	c.Version = completionCacheVersion
	tools := h.Tools()
	for _, st := range h.Status() {
		if st.State != host.StateReady {
			continue
		}
		var list []cachedTool
		for _, t := range tools {
			if t.Server != st.ID || !completable(t.Name) {
				continue
			}
			desc := t.Description
			if desc == "" {
				desc = t.Title
			}
			list = append(list, cachedTool{Name: t.Name, Description: completionText(desc, maxCachedDescRunes)})
		}
		c.Servers[st.ID] = list
	}
	boundToolCache(&c)
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := safefile.PrivateDir(dir); err != nil {
		return err
	}
	if err := safefile.WriteAtomicPrivate(path, data); err != nil {
		return err
	}
	pruneCompletionCaches(dir, path)
	return nil
}

// boundToolCache keeps at most maxCachedServers servers (by id) and
// maxCachedTools tools in all.
func boundToolCache(c *toolCache) {
	ids := make([]string, 0, len(c.Servers))
	for id := range c.Servers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	left := maxCachedTools
	for i, id := range ids {
		switch {
		case i >= maxCachedServers || left == 0:
			delete(c.Servers, id)
		case len(c.Servers[id]) > left:
			c.Servers[id] = c.Servers[id][:left]
			left = 0
		default:
			left -= len(c.Servers[id])
		}
	}
}

// pruneCompletionCaches removes the oldest cache files beyond
// maxCompletionCacheFiles (one per configuration ever listed).
func pruneCompletionCaches(dir, keep string) {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) <= maxCompletionCacheFiles {
		return
	}
	type file struct {
		path string
		mod  int64
	}
	var files []file
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), "tools-") {
			continue
		}
		if fi, err := e.Info(); err == nil {
			files = append(files, file{filepath.Join(dir, e.Name()), fi.ModTime().UnixNano()})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod < files[j].mod })
	for i := 0; i < len(files)-maxCompletionCacheFiles; i++ {
		if files[i].path != keep {
			os.Remove(files[i].path)
		}
	}
}

// completable reports whether a name can be offered to a shell as it is:
// short, printable, no space (a shell would split it) and no character a
// completion script or a terminal would act on.
func completable(name string) bool {
	if name == "" || len(name) > maxCachedNameBytes {
		return false
	}
	for _, r := range name {
		if r <= ' ' || r == 0x7f || !unicode.IsPrint(r) || strings.ContainsRune(`"'\$`+"`", r) {
			return false
		}
	}
	return true
}

// completionText is server text (a description) made fit for a shell's
// completion menu: one line (a newline would end the candidate, a tab
// starts its description), control and invisible characters replaced by
// spaces, runs of spaces joined, at most n runes (longer text is cut with
// an ellipsis).
func completionText(s string, n int) string {
	var out []rune
	space := false
	for _, r := range s {
		if len(out) > n {
			break // enough to know it is cut: the rest is never read
		}
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			space = len(out) > 0
			continue
		}
		if space {
			out = append(out, ' ')
			space = false
		}
		out = append(out, r)
	}
	if len(out) > n {
		out = append(out[:n-1], '…')
	}
	return string(out)
}
