package config

import (
	"path/filepath"

	"golang.org/x/sys/windows"
)

// systemManagedDir asks Windows for the ProgramData known folder: the
// %ProgramData% variable is the user's to set, the known folder is not.
func systemManagedDir() string {
	dir, err := windows.KnownFolderPath(windows.FOLDERID_ProgramData, 0)
	if err != nil || dir == "" {
		dir = `C:\ProgramData`
	}
	return filepath.Join(dir, "mcphost")
}
