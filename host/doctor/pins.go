package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/pinstore"
	"github.com/mcphost/mcphost/internal/safefile"
)

// KindPins is the check of the tool pin store and the managed pin files.
const KindPins = "pins"

// checkPins checks the pin store (opts.PinStore) and the managed pin files:
// readable, not corrupt, how much they pin; the checks go in pins, to be
// reported after the servers'. For the servers' check it returns a host
// option pinning against a private copy of the store, so that the changes
// pending show and nothing is written to the store itself, and a cleanup;
// nil when there is no usable store.
func (r *pinReport) checkPins(cfg *config.Config, opts Options) (host.Option, func()) {
	for _, mf := range cfg.Pinning.ManagedFiles {
		f, err := pinstore.ReadFile(mf)
		if err != nil {
			r.add(Check{Kind: KindPins, Subject: mf, Status: Fail, Message: "managed pin file: " + err.Error(),
				Fix: "restore the file, or ask whoever manages it: the tools it pins are hidden meanwhile"})
			continue
		}
		servers, tools := f.Count()
		r.add(Check{Kind: KindPins, Subject: mf, Status: OK, Message: fmt.Sprintf("managed pin file: %s, %s", plural(servers, "server"), plural(tools, "tool"))})
	}
	if opts.PinStore == "" {
		return nil, func() {}
	}
	data, err := safefile.ReadFile(opts.PinStore, pinstore.MaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		r.add(Check{Kind: KindPins, Subject: opts.PinStore, Status: OK,
			Message: "pin store: nothing pinned yet (a server's tools are pinned when it is first listed)"})
		data = nil
	} else if err != nil {
		r.add(Check{Kind: KindPins, Subject: opts.PinStore, Status: Fail, Message: "pin store: " + err.Error(),
			Fix: "move the file away; every server's tools are pinned again when next listed"})
		return nil, func() {}
	} else {
		f, err := pinstore.Parse(opts.PinStore, data)
		if err != nil {
			r.add(Check{Kind: KindPins, Subject: opts.PinStore, Status: Fail, Message: err.Error(),
				Fix: fmt.Sprintf("mv %s %s.broken (every server's tools are then pinned again when next listed), or restore it from a backup", opts.PinStore, opts.PinStore)})
			return nil, func() {}
		}
		servers, tools := f.Count()
		r.add(Check{Kind: KindPins, Subject: opts.PinStore, Status: OK, Message: fmt.Sprintf("pin store: %s, %s pinned", plural(servers, "server"), plural(tools, "tool"))})
	}
	dir, err := os.MkdirTemp("", "mcphost-doctor-pins-")
	if err != nil {
		return nil, func() {}
	}
	cleanup := func() { os.RemoveAll(dir) }
	copyPath := filepath.Join(dir, "pins.json")
	if data != nil {
		if err := os.WriteFile(copyPath, data, 0o600); err != nil {
			cleanup()
			return nil, func() {}
		}
	}
	return host.WithPinStore(copyPath), cleanup
}

// pinReport collects the pins checks while the servers are checked.
type pinReport struct{ checks []Check }

func (r *pinReport) add(c Check) { r.checks = append(r.checks, c) }

// checkPinChanges reports the tools whose listing differs from what was
// approved.
func (r *pinReport) checkPinChanges(store string, changes []host.PinChange) {
	if store == "" {
		return
	}
	if len(changes) == 0 {
		r.add(Check{Kind: KindPins, Subject: "changes", Status: OK, Message: "every listed tool is as it was approved"})
		return
	}
	var details []string
	for _, c := range changes {
		details = append(details, fmt.Sprintf("%s:%s is %s", c.Server, c.Tool, c.State))
	}
	r.add(Check{Kind: KindPins, Subject: "changes", Status: Warn,
		Message: fmt.Sprintf("%s changed or new since approved", plural(len(changes), "tool")),
		Fix:     "mcphost tools diff, then mcphost tools approve SERVER:TOOL", Details: details})
}
