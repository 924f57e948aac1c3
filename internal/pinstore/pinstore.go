// Package pinstore keeps the fingerprints of the tools a person approved,
// so that a server that later changes what a tool says (a "rug pull": an
// innocent description that starts carrying instructions for the model) is
// noticed. It holds the fingerprint, the identity a server is pinned
// under, the store file and a line diff of what changed; the host decides
// what a change costs the tool.
package pinstore

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
)

// State is a tool's pin state, as policies see it (abi.PolicyRequest.Pin).
type State string

const (
	// Pinned: the tool is as it was approved.
	Pinned State = "pinned"
	// New: the server did not have the tool when it was pinned.
	New State = "new"
	// Changed: the tool differs from what was approved.
	Changed State = "changed"
)

// Definition is a tool as the server sent it, before filters and name
// mapping: what its fingerprint covers.
type Definition struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
}

// Canonical is d as JSON with every object's keys sorted and no spaces, so
// that the same tool sent with its keys in another order has one
// fingerprint. Numbers keep their text (json.Number).
func Canonical(d Definition) ([]byte, error) {
	c := d
	for _, f := range []*json.RawMessage{&c.InputSchema, &c.OutputSchema, &c.Annotations} {
		if len(*f) == 0 {
			continue
		}
		out, err := canonicalJSON(*f)
		if err != nil {
			return nil, fmt.Errorf("pinstore: tool %q: %w", d.Name, err)
		}
		*f = out
	}
	return json.Marshal(c)
}

// canonicalJSON re-encodes raw with sorted keys (encoding/json writes a
// map's keys in order).
func canonicalJSON(raw json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if v == nil {
		return nil, nil
	}
	return json.Marshal(v)
}

// Fingerprint is "sha256:" and the hex SHA-256 of d's canonical JSON.
func Fingerprint(d Definition) (string, error) {
	data, err := Canonical(d)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// Identity is what a server is pinned under: a renamed entry, or the same
// id pointing at another command or URL, starts unpinned.
type Identity struct {
	ID        string
	Transport string
	Command   string
	Args      []string
	URL       string
}

// Key is the store's key for the identity: the hex SHA-256 of its parts,
// so that an argument or a URL holding a secret is never written to the
// store. The URL counts without its user info, query and fragment, where
// tokens are carried.
func (i Identity) Key() string {
	data, _ := json.Marshal([]any{i.ID, i.Transport, i.Command, i.Args, cleanURL(i.URL)})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16])
}

// Target is what a person recognises the server by: the command without
// its arguments, or the URL without user info, query and fragment.
func (i Identity) Target() string {
	if i.URL != "" {
		return cleanURL(i.URL)
	}
	return i.Command
}

func cleanURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		// Not a URL: its hash is kept, never its text.
		sum := sha256.Sum256([]byte(raw))
		return "unparsable-url:" + hex.EncodeToString(sum[:8])
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}
