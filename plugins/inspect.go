package plugins

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mcphost/mcphost/pdk/abi"
)

// Helpers for the CLI's plugin commands (inspect, test, bench).

// Info is what Inspect finds out about a plugin file.
type Info struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	// Description is what mcphost_describe returned; nil if the plugin does
	// not load (see Err).
	Description *abi.Description `json:"describe,omitempty"`
	// Hooks are the hooks the module exports (mcphost_<hook>_v1).
	Hooks   []abi.Hook `json:"hooks"`
	Exports []Export   `json:"exports"`
	Imports []Import   `json:"imports"`
	// Err is why mcphost would refuse the plugin (default limits, no
	// config), or nil.
	Err error `json:"-"`
}

// Inspect reads a plugin file: hash, exports, imports, and (by loading it
// with default limits and no config) its description. It fails only when
// the file cannot be read or is not a WebAssembly module; a plugin that
// would not load is reported in Info.Err.
func Inspect(ctx context.Context, path string, opts Options) (*Info, error) {
	data, err := readWasm(path)
	if err != nil {
		return nil, &Error{Plugin: SpecForFile(path).Name, Kind: KindLoad, Msg: err.Error(), Err: err}
	}
	sum := sha256.Sum256(data)
	info := &Info{Path: path, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}
	mod, err := parseModule(data)
	if err != nil {
		return nil, &Error{Plugin: SpecForFile(path).Name, Kind: KindLoad, Msg: path + ": " + err.Error(), Err: err}
	}
	info.Exports, info.Imports = mod.Exports, mod.Imports
	if info.Exports == nil {
		info.Exports = []Export{}
	}
	if info.Imports == nil {
		info.Imports = []Import{}
	}
	exported := exportedHooks(mod)
	info.Hooks = []abi.Hook{}
	for _, h := range abi.Hooks {
		if exported[h] {
			info.Hooks = append(info.Hooks, h)
		}
	}
	p, err := Open(ctx, SpecForFile(path), opts)
	if err != nil {
		info.Err = err
		return info, nil
	}
	defer p.Close(context.Background())
	info.Description = p.Description()
	return info, nil
}

var nameUnsafe = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)

// SpecForFile is the configuration of a plugin file used on its own (CLI):
// named after the file, every hook it describes, default limits, no config,
// secrets or HTTP. Adjust the fields before Open.
func SpecForFile(path string) *Spec {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	name = strings.Trim(nameUnsafe.ReplaceAllString(name, "-"), "-")
	if len(name) > 64 {
		name = name[:64]
	}
	if name == "" {
		name = "plugin"
	}
	return &Spec{
		Name:   name,
		Path:   abs,
		Limits: DefaultLimits(),
		Mode:   ModeEnforce,
		Source: "command line",
	}
}
