package doctor_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcphost/mcphost/host/doctor"
	"github.com/mcphost/mcphost/internal/hosttest"
	"github.com/mcphost/mcphost/internal/pinstore"
)

// doctor reports the pin store: what it pins, the changes pending (found
// against a copy: the store is not written), and a corrupt store as a
// failure naming the fix.
func TestPinStoreCheck(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bin := hosttest.BuildTestServer(t)
	e.write(e.global, "config.yaml", "servers:\n  ts: {command: "+yamlQuote(bin)+", startup_timeout: 1h}\n")
	store := filepath.Join(t.TempDir(), "pins.json")
	opts := e.options()
	opts.PinStore = store

	r := e.run(opts)
	wantCheck(t, check(t, r, doctor.KindPins, store), doctor.OK, "nothing pinned yet", "")
	wantCheck(t, check(t, r, doctor.KindPins, "changes"), doctor.OK, "every listed tool is as it was approved", "")
	if _, err := os.Stat(store); !os.IsNotExist(err) {
		t.Fatalf("doctor wrote the pin store: %v", err)
	}

	// A store that pins echo otherwise: one change pending.
	s := &pinstore.Store{Path: store}
	if err := s.Update(func(f *pinstore.File) error {
		pin, err := pinstore.NewPin(pinstore.Definition{Name: "echo", Description: "Something else."}, testNow())
		if err != nil {
			return err
		}
		return f.Set(pinstore.Identity{ID: "ts", Transport: "stdio", Command: bin}, map[string]*pinstore.Pin{"echo": pin})
	}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(store)
	r = e.run(opts)
	wantCheck(t, check(t, r, doctor.KindPins, store), doctor.OK, "1 server, 1 tool pinned", "")
	c := check(t, r, doctor.KindPins, "changes")
	wantCheck(t, c, doctor.Warn, "1 tool changed or new since approved", "mcphost tools diff")
	if after, _ := os.ReadFile(store); string(after) != string(before) {
		t.Error("doctor changed the pin store")
	}

	if err := os.WriteFile(store, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = e.run(opts)
	wantCheck(t, check(t, r, doctor.KindPins, store), doctor.Fail, "is not valid JSON", "mv ")
}

func testNow() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
