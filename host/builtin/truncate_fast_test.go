package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcphost/mcphost/internal/jsonscan"
	"github.com/mcphost/mcphost/pdk/abi"
)

// truncateWouldKeep is what Truncate decides by decoding: the result is a
// JSON object whose longest encoding is at most max bytes.
func truncateWouldKeep(data []byte, max int) bool {
	var result map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if dec.Decode(&result) != nil || result == nil {
		return false
	}
	return encodedLen(result, max) <= max
}

// withinLimit never passes a result that decoding would truncate or
// refuse.
func FuzzTruncateWithinLimit(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"héllo"}]}`,
		`{"content":[{"type":"text","text":"\u00e9\ud800\n"}]}`,
		`{"content":[{"type":"text","text":"a"}]} trailing`,
		" \n{\"content\":[]}",
		`null`, `[]`, `{"content":[{"type":"text","text":"` + "\xff\xfe" + `"}]}`,
	} {
		f.Add([]byte(s), 64)
	}
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		max %= 256
		if withinLimit(data, max) && !truncateWouldKeep(data, max) {
			t.Fatalf("withinLimit(%q, %d) passed a result Truncate would change or refuse", data, max)
		}
	})
}

// A result within the limit comes back as it came, without being decoded;
// anything else goes the long way, which still refuses what is not an
// object.
func TestTruncatePassesSmallResultsAsTheyCame(t *testing.T) {
	tr := Truncate{MaxBytes: 100}
	small := []byte(`{"content":[{"type":"text","text":"hello"}],"structuredContent":{"n":1.50}}`)
	resp, err := tr.TransformResult(context.Background(), &abi.TransformResultRequest{Result: small})
	if err != nil || &resp.Result[0] != &small[0] || len(resp.Result) != len(small) {
		t.Fatalf("small result: %q %v, want the same bytes back", resp.Result, err)
	}
	for _, bad := range []string{`null`, `[1]`, `"x"`, `{"content":`} {
		if _, err := tr.TransformResult(context.Background(), &abi.TransformResultRequest{Result: []byte(bad)}); err == nil {
			t.Errorf("%s: accepted as a result", bad)
		}
	}
	big := []byte(`{"content":[{"type":"text","text":"` + strings.Repeat("x", 200) + `"}]}`)
	resp, err = tr.TransformResult(context.Background(), &abi.TransformResultRequest{Result: big})
	if err != nil || bytes.Equal(resp.Result, big) || !bytes.Contains(resp.Result, []byte("truncated by mcphost")) {
		t.Fatalf("big result: %.80q %v, want it truncated", resp.Result, err)
	}
}

// scanLen measures JSON text as encodedLen measures what it decodes to:
// exactly, when every key is once in its object and the bytes are UTF-8,
// and never less otherwise (the case a pass-through must not get wrong).
func FuzzScanLen(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"h\u00e9llo <b>&amp;</b>\n\t\"\\\/\b\f\u0001"}]}`,
		`{"a":"\ud83d\ude00 \ud83d \ude00 \ud83d\u0041 \u2028\u2029 ` + "\u2028 é \xff" + `"}`,
		`{"n":[1e20,-0,0.0000001,1E+2,9999999999999999999,12345678901234567890,1e400,-1.5e-7]}`,
		`{"a":1,"a":{"b":[true,false,null]}}`, " \n{ \"x\" : [ ] }\t",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if !json.Valid(data) || dec.Decode(&v) != nil {
			scanLen(data, 1<<20) // never fails, whatever it is given
			return
		}
		scanned, decoded := scanLen(data, 1<<30), encodedLen(v, 1<<30)
		if scanned < decoded {
			t.Fatalf("scanLen(%q) = %d, less than the %d of what it decodes to", data, scanned, decoded)
		}
		if utf8.Valid(data) && jsonscan.UniqueKeys(data, 10000) && scanned != decoded {
			t.Fatalf("scanLen(%q) = %d, want %d", data, scanned, decoded)
		}
	})
}
