package authn

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/mcphost/mcphost/internal/safefile"
)

// privateFile is a versioned JSON document that holds secrets: the token
// file and the secret file. It is read with a size bound, and rewritten
// atomically, under a lock, as a 0600 file in a directory that only its
// owner can enter.
type privateFile struct {
	path string
	what string // "token file", "secret file": for messages
	fix  string // what to do with a file that cannot be decoded
}

// versioned is a document with a format version.
type versioned interface{ fileVersion() int }

// read decodes the file into doc. A file that does not exist leaves doc
// untouched and is not an error (exists is false). No error quotes the
// file's content.
func (p privateFile) read(doc versioned) (exists bool, err error) {
	data, err := safefile.ReadFile(p.path, maxStoreBytes)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return true, fmt.Errorf("authn: %s %s: %w", p.what, p.path, err)
	}
	if err := json.Unmarshal(data, doc); err != nil {
		return true, fmt.Errorf("authn: %s %s is not valid JSON (%s); %s", p.what, p.path, jsonErrorWithoutValues(err), p.fix)
	}
	if v := doc.fileVersion(); v != storeVersion {
		return true, fmt.Errorf("authn: %s %s has version %d, this mcphost reads version %d", p.what, p.path, v, storeVersion)
	}
	return true, nil
}

// update rewrites the file with the document edit returns (edit reads
// the file and changes what it read), under the file's lock so that two
// processes do not lose each other's writes.
func (p privateFile) update(edit func() (versioned, error)) error {
	unlock, err := safefile.Lock(p.path, storeLockWait)
	if err != nil {
		return fmt.Errorf("authn: %s: %w", p.what, err)
	}
	defer unlock()
	doc, err := edit()
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := privateDir(filepath.Dir(p.path)); err != nil {
		return fmt.Errorf("authn: %s %s: %w", p.what, p.path, err)
	}
	if err := safefile.WriteAtomicPrivate(p.path, append(data, '\n')); err != nil {
		return fmt.Errorf("authn: writing %s %s: %w", p.what, p.path, err)
	}
	return nil
}

// privateDir makes dir, or takes from it the access that others have: a
// user who can write the directory could replace the file, one who can
// read it sees which files there are. Windows directories have ACLs
// instead, which Go's modes do not describe.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if runtime.GOOS == "windows" {
		return nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		keep := fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky
		return os.Chmod(dir, fi.Mode()&keep&^0o077)
	}
	return nil
}
