//go:build unix

package doctor_test

import (
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host/doctor"
)

// A managed file that a user other than root can change is used, and
// doctor warns that it is not tamper-proof. Not parallel: it pretends to
// be another user.
func TestManagedTamper(t *testing.T) {
	e := newEnv(t)
	wasm := filepath.Join(t.TempDir(), "org.wasm")
	if err := os.WriteFile(wasm, []byte("\x00asm"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts, file := e.managedOptions("policy: {deny: [\"*big*\"]}\nplugins:\n  - {name: org, path: " + yamlQuote(wasm) + "}\n")
	tamper := func(r *doctor.Report) map[string]string {
		out := map[string]string{}
		for _, c := range r.Checks {
			if c.Kind == doctor.KindManaged && strings.Contains(c.Message, "tamper") {
				out[c.Subject] = c.Message + " | " + c.Fix
			}
		}
		return out
	}
	if os.Geteuid() == 0 {
		// Root owns these files with modes that only root may write.
		if got := tamper(e.run(opts)); len(got) != 0 {
			t.Errorf("root-owned 0644 files: %v", got)
		}
	}

	if err := os.Chmod(file, 0o666); err != nil {
		t.Fatal(err)
	}
	r := e.run(opts)
	if got := tamper(r)[file]; got != "writable by others (mode 0666): the managed configuration is not tamper-proof | make it owned by root and not writable by others (chmod 644, chown root)" {
		t.Errorf("a managed file of mode 0666: %q (all: %v)", got, tamper(r))
	}
	if len(r.Managed.Writable) == 0 || r.Managed.Writable[0] != file {
		t.Errorf("--json writable: %v", r.Managed.Writable)
	}
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}

	// The running user can write them (a user's own files, here).
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	uid := os.Getuid()
	if uid == 0 {
		defer doctor.PretendUID(4242)()
		me = &user.User{Username: "uid 4242"}
		if u, err := user.LookupId("4242"); err == nil {
			me = u
		}
	}
	got := tamper(e.run(opts))
	for _, p := range []string{opts.Load.ManagedDir, file, wasm} {
		want := "writable by you (" + me.Username + "): the managed configuration is not tamper-proof"
		if !strings.HasPrefix(got[p], want) {
			t.Errorf("%s: %q, want %q", p, got[p], want)
		}
	}
	if !strings.Contains(got[opts.Load.ManagedDir], "chmod 755") {
		t.Errorf("the directory's fix: %q", got[opts.Load.ManagedDir])
	}
}
