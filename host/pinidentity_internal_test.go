package host

import (
	"testing"

	"github.com/mcphost/mcphost/host/config"
)

// A token in a server's arguments or URL that rotates does not make the
// server a new one (whose first listing would be trusted again): the
// identity is the entry as written, before ${VAR} expansion.
func TestPinIdentityIsTheEntryAsWritten(t *testing.T) {
	key := func(args []string, url string) string {
		s := &server{cfg: &config.Server{ID: "tok", Transport: config.TransportStdio, Command: "python3", Args: args, URL: url,
			Written: config.Target{Command: "python3", Args: []string{"srv.py", "--token=${TOK}"}}}}
		return s.pinIdentity().Key()
	}
	if key([]string{"srv.py", "--token=111"}, "") != key([]string{"srv.py", "--token=222"}, "") {
		t.Error("a rotated token changed the server's identity")
	}
	other := &server{cfg: &config.Server{ID: "tok", Transport: config.TransportStdio, Command: "python3", Args: []string{"other.py"},
		Written: config.Target{Command: "python3", Args: []string{"other.py"}}}}
	if other.pinIdentity().Key() == key([]string{"srv.py", "--token=111"}, "") {
		t.Error("another program has the same identity")
	}
}
