package pdk

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/pdk/internal/wire"
)

// A Handler is a hook at the byte level: it gets the input document and
// returns the output document. Most plugins use a hook package's Handle
// instead, which decodes and encodes the typed documents of package abi.
type Handler func(input []byte) (output []byte, err error)

// The registry is written only during package initialisation, which runs
// before any export can be called, so it needs no lock.
var (
	name, version string
	described     bool
	handlers      = map[abi.Hook]Handler{}
	// initErr is the first registration mistake. A mistake made in init
	// cannot be reported by a return value, and a panic there would trap the
	// module's start where its message is lost; so it is kept and returned
	// by describe and by every hook call, where the host shows it.
	initErr error
)

// Describe sets the plugin's name and version, as mcphost_describe reports
// them. Call it once, in init. A plugin that never calls it fails describe,
// and the host refuses to load it.
func Describe(pluginName, pluginVersion string) {
	if pluginName == "" {
		setInitErr(errors.New("pdk.Describe: the plugin name is empty"))
		return
	}
	name, version, described = pluginName, pluginVersion, true
}

// Register installs the handler of a hook and adds the hook to the plugin's
// description. Call it in init, once per hook. It is the byte-level layer
// under the hook packages' Handle functions: a plugin that registers a hook
// this way must still import the hook's package (or declare the export
// itself, see Run), or the host refuses the plugin because describe names a
// hook that is not exported.
func Register(hook abi.Hook, h Handler) {
	switch {
	case !hook.Valid():
		setInitErr(fmt.Errorf("pdk.Register: unknown hook %q", hook))
	case h == nil:
		setInitErr(fmt.Errorf("pdk.Register: nil handler for the %s hook", hook))
	case handlers[hook] != nil:
		setInitErr(fmt.Errorf("pdk.Register: the %s hook is registered twice", hook))
	default:
		handlers[hook] = h
	}
}

func setInitErr(err error) {
	if initErr == nil {
		initErr = err
	}
}

// JSON adapts a typed hook function to a Handler with encoding/json: the
// input document is decoded into a Req, and the returned *Resp is encoded as
// the output. A nil *Resp without an error is an error (a hook always
// answers). The hook packages do not use it: they have a decoder and an
// encoder without reflection for their documents, several times faster in
// a guest. JSON is for a hook this PDK does not know yet (see Run).
func JSON[Req, Resp any](hook abi.Hook, fn func(*Req) (*Resp, error)) Handler {
	return func(input []byte) ([]byte, error) {
		req := new(Req)
		if err := json.Unmarshal(input, req); err != nil {
			return nil, fmt.Errorf("pdk: decoding the %s input: %w", hook, err)
		}
		resp, err := fn(req)
		if err != nil {
			return nil, err
		}
		if resp == nil {
			return nil, fmt.Errorf("pdk: the %s hook returned neither a result nor an error", hook)
		}
		out, err := json.Marshal(resp)
		if err != nil {
			return nil, fmt.Errorf("pdk: encoding the %s output: %w", hook, err)
		}
		return out, nil
	}
}

// Description is what mcphost_describe answers: the name and version given
// to Describe and the registered hooks, in the order of abi.Hooks. It fails
// when Describe was not called or a registration went wrong.
func Description() (abi.Description, error) {
	if initErr != nil {
		return abi.Description{}, initErr
	}
	if !described {
		return abi.Description{}, errors.New("pdk: the plugin did not call pdk.Describe(name, version) in init")
	}
	d := abi.Description{ABI: abi.Version, Name: name, Version: version, Hooks: []abi.Hook{}}
	for _, h := range abi.Hooks {
		if handlers[h] != nil {
			d.Hooks = append(d.Hooks, h)
		}
	}
	return d, nil
}

func describeJSON() ([]byte, error) {
	d, err := Description()
	if err != nil {
		return nil, err
	}
	return wire.EncodeDescription(&d)
}

// Call runs the registered handler of a hook on an input document, as the
// hook's export does inside WebAssembly: a panic in the handler becomes an
// error instead of escaping. It is how a plugin's own tests exercise its
// hooks natively; see also CallJSON and UseMock.
func Call(hook abi.Hook, input []byte) (output []byte, err error) {
	if initErr != nil {
		return nil, initErr
	}
	h := handlers[hook]
	if h == nil {
		return nil, fmt.Errorf("pdk: no handler is registered for the %s hook", hook)
	}
	defer func() {
		// A plugin error with the panic's message rather than a trap whose
		// message is lost. (TinyGo on WebAssembly cannot recover; there the
		// panic still traps.)
		if r := recover(); r != nil {
			output, err = nil, fmt.Errorf("pdk: panic in the %s hook: %v", hook, r)
		}
	}()
	return h(input)
}

// CallJSON is Call with documents as values: in is encoded to JSON, and the
// output is decoded into out (a pointer), e.g. a *abi.PolicyDecision.
func CallJSON(hook abi.Hook, in, out any) error {
	input, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("pdk: encoding the %s input: %w", hook, err)
	}
	output, err := Call(hook, input)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(output, out); err != nil {
		return fmt.Errorf("pdk: decoding the %s output %s: %w", hook, output, err)
	}
	return nil
}
