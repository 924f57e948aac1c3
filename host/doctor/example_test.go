package doctor_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/host/doctor"
)

func ExampleRun() {
	global, _ := os.MkdirTemp("", "mcphost-example-global-")
	project, _ := os.MkdirTemp("", "mcphost-example-project-")
	defer os.RemoveAll(global)
	defer os.RemoveAll(project)
	// The administrator's managed directory (default: the system one);
	// empty here, so that the example reads none.
	managed, _ := os.MkdirTemp("", "mcphost-example-managed-")
	defer os.RemoveAll(managed)
	os.WriteFile(filepath.Join(global, "config.yaml"), []byte(`
servers:
  tasks:
    command: mcphost-example-not-installed
    args: [--stdio]
`), 0o600)

	rep := doctor.Run(context.Background(), doctor.Options{
		Load: config.LoadOptions{GlobalDir: global, WorkDir: project, ManagedDir: managed, Environ: []string{}},
	})
	for _, c := range rep.Checks {
		switch c.Kind {
		case doctor.KindCommand:
			fmt.Printf("%s %s %s: %s\n", c.Status, c.Kind, c.Subject, c.Message)
			fmt.Printf("  fix: %s\n", c.Fix)
		default:
			// Their subjects and messages name the temporary directories.
			fmt.Printf("%s %s\n", c.Status, c.Kind)
		}
	}
	fmt.Println("ok:", rep.OK)
	// Output:
	// ok config
	// ok managed
	// ok trust
	// fail command mcphost-example-not-installed: not found on PATH (needed by server tasks)
	//   fix: install mcphost-example-not-installed, or give the server's command as a full path (or set PATH in the server's env)
	// fail server
	// ok: false
}
