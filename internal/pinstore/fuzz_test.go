package pinstore

import (
	"encoding/json"
	"testing"
)

// FuzzParse: whatever a store file holds, Parse answers a store or an
// error, never panics, and a store it answers has no nil entries for the
// host to trip on.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"version":1,"servers":{"k":{"id":"s","tools":{"t":{"fingerprint":"sha256:00","approved_at":"2026-01-01T00:00:00Z","definition":{"name":"t"}}}}}}`))
	f.Add([]byte(`{"version":1,"servers":{"k":null}}`))
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("pins.json", data)
		if err != nil {
			return
		}
		for _, sp := range file.Servers {
			if sp == nil || sp.Tools == nil {
				t.Fatal("nil entry in a parsed store")
			}
			for _, p := range sp.Tools {
				if p == nil || p.Fingerprint == "" {
					t.Fatal("pin without fingerprint in a parsed store")
				}
				if p.Definition != nil {
					_ = Diff(p.Definition, Definition{Name: "x", InputSchema: json.RawMessage(`{}`)})
				}
			}
		}
	})
}
