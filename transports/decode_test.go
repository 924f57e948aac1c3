package transports

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// decodeSeeds are messages of every kind, and the near misses the fast
// path must leave to go-sdk.
var decodeSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello"}]}}`,
	`{"jsonrpc":"2.0","id":"a-1","result":{}}`,
	`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad","data":{"x":[1,2]}}}`,
	`{"jsonrpc":"2.0","id":7,"error":null,"result":{"a":1}}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`,
	`{"jsonrpc":"2.0","id":3,"method":"elicitation/create","params":{"message":"?"}}`,
	`{"jsonrpc":"2.0","id":3,"method":"","params":{}}`,
	`{"jsonrpc":"2.0","id":3,"method":null}`,
	`{"jsonrpc":"2.0","id":1.5,"result":{}}`,
	`{"jsonrpc":"2.0","id":1e3,"result":{}}`,
	`{"jsonrpc":"2.0","id":null,"result":{}}`,
	`{"jsonrpc":"2.0","id":true,"result":{}}`,
	`{"jsonrpc":"2.0","id":{},"result":{}}`,
	`{"jsonrpc":"2.0","result":{}}`,
	`{"jsonrpc":"1.0","id":1,"result":{}}`,
	`{"JSONRPC":"2.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","ID":1,"Result":{}}`,
	`{"jsonrpc":"2.0","id":1,"result":{}} {"jsonrpc":"2.0","id":2,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"result":{}} garbage`,
	`{"jsonrpc":"2.0","id":1,"result":{"a":"\u00e9\ud800"}}`,
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":\"\xff\"}}",
	`{"jsonrpc":"2.0","id":1,"method":7}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"result":{},"extra":[1,2,{"b":null}]}`,
	`{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`,
	`{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", 998) + strings.Repeat("]", 998) + `}`,
	`[1]`, `"x"`, `null`, `{}`, `{"jsonrpc":"2.0"`, ``,
}

// The fast path answers what go-sdk's DecodeMessage answers, for every
// seed.
func TestDecodeMessageAgreesWithSDK(t *testing.T) {
	for _, s := range decodeSeeds {
		checkDecodeAgrees(t, []byte(s))
	}
	// And it takes the ordinary messages itself.
	for _, s := range decodeSeeds[:9] {
		if _, ok := decodeFast([]byte(s)); !ok {
			t.Errorf("the fast path left an ordinary message to go-sdk: %s", s)
		}
	}
}

// FuzzDecodeMessage: decodeMessage and jsonrpc.DecodeMessage agree on any
// input: the same message, or an error from both.
func FuzzDecodeMessage(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecodeAgrees(t, data)
	})
}

func checkDecodeAgrees(t *testing.T, data []byte) {
	t.Helper()
	want, wantErr := jsonrpc.DecodeMessage(bytes.Clone(data))
	frame := bytes.Clone(data)
	got, gotErr := decodeMessage(frame)
	if (wantErr != nil) != (gotErr != nil) {
		t.Fatalf("%q: error %v, go-sdk's %v", data, gotErr, wantErr)
	}
	if wantErr != nil {
		if gotErr.Error() != wantErr.Error() {
			t.Fatalf("%q: error %q, go-sdk's %q", data, gotErr, wantErr)
		}
		return
	}
	if g, w := describeMessage(got), describeMessage(want); g != w {
		t.Fatalf("%q:\n got  %s\n want %s", data, g, w)
	}
}

// describeMessage spells out every field of a decoded message.
func describeMessage(m jsonrpc.Message) string {
	switch m := m.(type) {
	case *jsonrpc.Request:
		return fmt.Sprintf("request id=%#v method=%q params=%q extra=%v", m.ID.Raw(), m.Method, m.Params, m.Extra)
	case *jsonrpc.Response:
		errs := "<nil>"
		if m.Error != nil {
			we, ok := m.Error.(*jsonrpc.Error)
			if !ok {
				return fmt.Sprintf("response with error of type %T", m.Error)
			}
			errs = fmt.Sprintf("code=%d message=%q data=%q", we.Code, we.Message, we.Data)
		}
		return fmt.Sprintf("response id=%#v result=%q error=%s extra=%v", m.ID.Raw(), m.Result, errs, m.Extra)
	}
	return fmt.Sprintf("%s %v", reflect.TypeOf(m), m)
}

// The fast path keeps no go-sdk decoder buffer: a backend's answer costs a
// few small allocations.
func TestDecodeMessageAllocations(t *testing.T) {
	data := []byte(`{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"hello"}]}}`)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := decodeMessage(data); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 4 {
		t.Errorf("decodeMessage: %.0f allocations per message, want at most 4", allocs)
	}
}

// BenchmarkDecodeMessage compares the fast path with go-sdk's decoder for
// a backend's typical answer.
func BenchmarkDecodeMessage(b *testing.B) {
	small := []byte(`{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"hello"}]}}`)
	big := []byte(`{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 100<<10) + `"}]}}`)
	for _, c := range []struct {
		name string
		data []byte
	}{{"small", small}, {"100KiB", big}} {
		for _, d := range []struct {
			name   string
			decode func([]byte) (jsonrpc.Message, error)
		}{{"sdk", jsonrpc.DecodeMessage}, {"fast", decodeMessage}} {
			b.Run(c.name+"/"+d.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(c.data)))
				for b.Loop() {
					if _, err := d.decode(c.data); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
