package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/pdk/abi"
)

// decoders pairs every decoder with the type encoding/json would fill.
var decoders = []struct {
	name   string
	decode func([]byte) (any, error)
	newV   func() any
}{
	{"PolicyRequest", func(b []byte) (any, error) { return DecodePolicyRequest(b) }, func() any { return new(abi.PolicyRequest) }},
	{"FilterToolsRequest", func(b []byte) (any, error) { return DecodeFilterToolsRequest(b) }, func() any { return new(abi.FilterToolsRequest) }},
	{"MapNamesRequest", func(b []byte) (any, error) { return DecodeMapNamesRequest(b) }, func() any { return new(abi.MapNamesRequest) }},
	{"TransformResultRequest", func(b []byte) (any, error) { return DecodeTransformResultRequest(b) }, func() any { return new(abi.TransformResultRequest) }},
	{"AuthRequest", func(b []byte) (any, error) { return DecodeAuthRequest(b) }, func() any { return new(abi.AuthRequest) }},
	{"HTTPResponse", func(b []byte) (any, error) { return DecodeHTTPResponse(b) }, func() any { return new(abi.HTTPResponse) }},
}

// encoders pairs every encoder with its type.
var encoders = []struct {
	name   string
	encode func(any) ([]byte, error)
	newV   func() any
}{
	{"Description", func(v any) ([]byte, error) { return EncodeDescription(v.(*abi.Description)) }, func() any { return new(abi.Description) }},
	{"PolicyDecision", func(v any) ([]byte, error) { return EncodePolicyDecision(v.(*abi.PolicyDecision)) }, func() any { return new(abi.PolicyDecision) }},
	{"FilterToolsResponse", func(v any) ([]byte, error) { return EncodeFilterToolsResponse(v.(*abi.FilterToolsResponse)) }, func() any { return new(abi.FilterToolsResponse) }},
	{"MapNamesResponse", func(v any) ([]byte, error) { return EncodeMapNamesResponse(v.(*abi.MapNamesResponse)) }, func() any { return new(abi.MapNamesResponse) }},
	{"TransformResultResponse", func(v any) ([]byte, error) {
		return EncodeTransformResultResponse(v.(*abi.TransformResultResponse))
	}, func() any { return new(abi.TransformResultResponse) }},
	{"AuthResponse", func(v any) ([]byte, error) { return EncodeAuthResponse(v.(*abi.AuthResponse)) }, func() any { return new(abi.AuthResponse) }},
	{"HTTPRequest", func(v any) ([]byte, error) { return EncodeHTTPRequest(v.(*abi.HTTPRequest)) }, func() any { return new(abi.HTTPRequest) }},
}

// fill sets every field reachable from v to a non-zero value, so that a
// field the codec forgets shows as a difference from encoding/json.
func fill(t *testing.T, v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, v.Elem(), n)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			fill(t, v.Field(i), n)
		}
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d <é> \"q\" \\ \n \u2028 😀", *n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int:
		v.SetInt(int64(*n))
	case reflect.Slice:
		switch {
		case v.Type() == reflect.TypeOf(json.RawMessage(nil)):
			v.SetBytes([]byte(fmt.Sprintf(`{"content":[{"type":"text","text":"r%d <&>"}],"n":12345678901234567890}`, *n)))
		case v.Type().Elem().Kind() == reflect.Uint8:
			v.SetBytes([]byte{0, 1, 2, 250, byte(*n)})
		default:
			s := reflect.MakeSlice(v.Type(), 2, 2)
			fill(t, s.Index(0), n)
			fill(t, s.Index(1), n)
			v.Set(s)
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		switch v.Type().Elem().Kind() {
		case reflect.String:
			m.SetMapIndex(reflect.ValueOf("b-key"), reflect.ValueOf("v1"))
			m.SetMapIndex(reflect.ValueOf("a-key"), reflect.ValueOf(fmt.Sprint("v", *n)))
		case reflect.Interface:
			for k, e := range map[string]any{
				"str": "x", "num": 1.5, "big": 1e300, "tiny": 1e-9, "int": float64(*n), "neg": -0.0,
				"bool": true, "null": nil, "list": []any{"a", 2.0, false, nil, []any{}},
				"obj": map[string]any{"z": "last", "a": map[string]any{}},
			} {
				m.SetMapIndex(reflect.ValueOf(k), reflect.ValueOf(&e).Elem())
			}
		default:
			t.Fatalf("fill: no rule for %s", v.Type())
		}
		v.Set(m)
	default:
		t.Fatalf("fill: no rule for %s", v.Type())
	}
}

func TestDecodersMatchEncodingJSONOnFilledDocuments(t *testing.T) {
	for _, c := range decoders {
		t.Run(c.name, func(t *testing.T) {
			want := c.newV()
			n := 0
			fill(t, reflect.ValueOf(want).Elem(), &n)
			b, err := json.Marshal(want)
			if err != nil {
				t.Fatal(err)
			}
			// What encoding/json reads back is the reference (e.g. its float64s).
			ref := c.newV()
			if err := json.Unmarshal(b, ref); err != nil {
				t.Fatal(err)
			}
			got, err := c.decode(b)
			if err != nil {
				t.Fatalf("decode %s: %v", b, err)
			}
			if !reflect.DeepEqual(got, ref) {
				t.Fatalf("decode %s\n got %#v\nwant %#v", b, got, ref)
			}
		})
	}
}

func TestEncodersMatchEncodingJSON(t *testing.T) {
	for _, c := range encoders {
		t.Run(c.name, func(t *testing.T) {
			for _, filled := range []bool{false, true} {
				v := c.newV()
				if filled {
					n := 0
					fill(t, reflect.ValueOf(v).Elem(), &n)
				}
				want, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				got, err := c.encode(v)
				if err != nil {
					t.Fatal(err)
				}
				if c.name == "TransformResultResponse" {
					// The result is written as it is, not compacted and
					// HTML-escaped: the same document, other bytes.
					var g, w any
					if err := json.Unmarshal(got, &g); err != nil {
						t.Fatalf("encode (filled %v): %s: %v", filled, got, err)
					}
					json.Unmarshal(want, &w)
					if !reflect.DeepEqual(g, w) {
						t.Fatalf("encode (filled %v)\n got %s\nwant %s", filled, got, want)
					}
					continue
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("encode (filled %v)\n got %s\nwant %s", filled, got, want)
				}
			}
		})
	}
}

// samples are inputs of every kind the decoders meet, valid and not; the
// decoders must agree with encoding/json on each (and they seed the fuzzer).
var samples = []string{
	``, ` `, `null`, `{}`, `[]`, `"x"`, `1`, `{"server":"fs"} x`, `{"server":"fs",}`, `{"server" "fs"}`,
	`{"server":"fs","tool":"delete","name":"fs_delete","arguments":{"path":"/srv/x","n":3,"f":-1.5e3,"ok":true,"none":null,"l":[1,"a",{}]},` +
		`"annotations":{"title":"T","readOnlyHint":false,"destructiveHint":true,"idempotentHint":true,"openWorldHint":false},` +
		`"meta":{"progressToken":7},"caller":{"kind":"gateway","id":"u","session":"s"},"future":{"a":[1,2]}}`,
	`{"annotations":null,"caller":null,"arguments":null,"meta":{}}`,
	`{"annotations":{"destructiveHint":null,"openWorldHint":true}}`,
	` { "server" : "a\"b\\c\/d\b\f\n\r\t\u00e9\u2028\ud83d\ude00" , "tool" : "\ud800", "name": "\udc00\u0041" } `,
	"{\"server\":\"\xff\xfe invalid utf8 \xc3\"}",
	"{\"server\":\"raw é 😀\"}",
	`{"server":"\x"}`, `{"server":"\u12"}`, "{\"server\":\"a\tb\"}", `{"server":"unterminated`,
	`{"server":1}`, `{"server":true}`, `{"annotations":{"readOnlyHint":"yes"}}`, `{"annotations":[]}`,
	`{"arguments":{"n":01}}`, `{"arguments":{"n":-}}`, `{"arguments":{"n":1.}}`, `{"arguments":{"n":1e}}`,
	`{"arguments":{"n":1e400}}`, `{"arguments":{"n":-0}}`, `{"arguments":{"n":0.5E+2}}`, `{"arguments":{"n":tru}}`,
	`{"arguments":{"n":nul}}`, `{"arguments":[1]}`, `{"arguments":"x"}`,
	`{"server":"s","tools":[{"name":"a","title":"A","description":"d","annotations":{"readOnlyHint":true},` +
		`"input_schema":{"type":"object","properties":{"x":{"type":"string"}}}},{"name":"b","input_schema":null},null]}`,
	`{"tools":null}`, `{"tools":[]}`, `{"tools":{}}`, `{"tools":[1]}`,
	`{"tools":[{"server":"gh","tool":"create_issue","title":"Create"},{"server":"fs","tool":"x.y"}],"constraints":{"max_length":64,"pattern":"^[a-zA-Z0-9_-]{1,64}$"}}`,
	`{"constraints":{"max_length":1.5}}`, `{"constraints":{"max_length":1e2}}`, `{"constraints":{"max_length":-3}}`,
	`{"constraints":{"max_length":99999999999999999999}}`, `{"constraints":null}`,
	`{"server":"s","tool":"t","name":"n","arguments":{},"result":{"content":[{"type":"text","text":"hi <b>"}],"isError":false}}`,
	`{"result":null}`, `{"result":[1, 2 ,3 ]}`, `{"result":"x"}`, `{"result":}`, `{"result":{"a":"\q"}}`,
	`{"server":"api","url":"https://api.example/mcp","challenge":{"status":401,"www_authenticate":"Bearer realm=\"x\""}}`,
	`{"challenge":null}`, `{"challenge":{"status":"401"}}`,
	`{"status":200,"headers":{"Content-Type":"application/json","X":""},"body":"aGVsbG8=","error":""}`,
	`{"status":0,"error":"refused"}`, `{"body":"not base64!"}`, `{"body":null,"headers":null}`, `{"headers":{"a":1}}`,
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	`{"arguments":` + strings.Repeat(`{"a":`, 100) + `1` + strings.Repeat(`}`, 100) + `}`,
}

// comparable reports whether encoding/json and the decoders must agree on
// b: not when an object repeats a key (encoding/json merges some repeats
// into memory it reuses) or has a key that matches a field only without
// regard to case (encoding/json's folding, which no host relies on).
func comparable(b []byte) bool {
	fields := map[string]bool{}
	for _, c := range decoders {
		collectFields(reflect.TypeOf(c.newV()).Elem(), fields)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		object bool
		keys   map[string]bool
		atKey  bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return true // invalid or done: the error-ness is compared anyway
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if key, ok := tok.(string); ok && top != nil && top.object && top.atKey {
			if top.keys[key] {
				return false
			}
			top.keys[key] = true
			for f := range fields {
				if strings.EqualFold(f, key) && f != key {
					return false
				}
			}
			top.atKey = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, keys: map[string]bool{}, atKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// A value ended: the enclosing object expects a key next.
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].atKey = true
		}
	}
}

func collectFields(t reflect.Type, fields map[string]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		fields[name] = true
		collectFields(f.Type, fields)
	}
}

func checkDecoders(t *testing.T, b []byte) {
	if !comparable(b) {
		return
	}
	for _, c := range decoders {
		ref := c.newV()
		refErr := json.Unmarshal(b, ref)
		got, err := c.decode(b)
		if (err != nil) != (refErr != nil) {
			t.Fatalf("%s(%q): error %v, encoding/json: %v", c.name, b, err, refErr)
		}
		if err == nil && !reflect.DeepEqual(got, ref) {
			t.Fatalf("%s(%q)\n got %#v\nwant %#v", c.name, b, got, ref)
		}
	}
}

func TestDecodersMatchEncodingJSONOnSamples(t *testing.T) {
	for _, s := range samples {
		checkDecoders(t, []byte(s))
	}
}

func FuzzDecoders(f *testing.F) {
	for _, s := range samples {
		f.Add([]byte(s))
	}
	f.Fuzz(checkDecoders)
}

// checkValue compares the generic encoder with encoding/json on the value
// encoding/json decodes from b.
func checkValue(t *testing.T, b []byte) {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return
	}
	want, wantErr := json.Marshal(v)
	got, err := appendValue(nil, v)
	if (err != nil) != (wantErr != nil) || !bytes.Equal(got, want) {
		t.Fatalf("appendValue(%#v) = %s, %v; encoding/json: %s, %v", v, got, err, want, wantErr)
	}
}

func TestEncodeValues(t *testing.T) {
	for _, s := range samples {
		checkValue(t, []byte(s))
	}
	for _, s := range []string{
		`"<script>&amp;</script>"`, "\"\u2028\u2029\"", "[0.000001,0.0000001,1e20,1e21,-1e-7,123456789.125,5e-324,1.7976931348623157e308]",
		"\"\\u0000\\u001f\\u007f\"", `{"b":1,"a":{"d":[],"c":{}}}`, " [ 1 , { \"a\" : \"<\" } ] ",
	} {
		checkValue(t, []byte(s))
	}
	// Go values a plugin may put into arguments, beyond what decoding gives.
	for _, v := range []any{
		map[string]any{"i": 3, "i64": int64(-4), "s": []string{"a", "<"}, "m": map[string]string{"k": "v"},
			"f32": float32(0.1), "u": uint8(7), "st": struct{ A int }{1}, "nilmap": map[string]any(nil), "nillist": []any(nil)},
	} {
		want, _ := json.Marshal(v)
		got, err := appendValue(nil, v)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("appendValue(%#v) = %s, %v; want %s", v, got, err, want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1)} {
		if _, err := appendValue(nil, f); err == nil {
			t.Errorf("appendValue(%v) encoded", f)
		}
	}
}

func FuzzEncode(f *testing.F) {
	for _, s := range samples {
		f.Add([]byte(s))
	}
	f.Fuzz(checkValue)
}

func FuzzEncodeString(f *testing.F) {
	for _, s := range []string{"", "plain", "<&>", "\u2028", "\xff", "é😀", "\x00\x1f\"\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
		}
	})
}

func TestHandler(t *testing.T) {
	h := Handler(abi.HookPolicy, DecodePolicyRequest, EncodePolicyDecision,
		func(r *abi.PolicyRequest) (*abi.PolicyDecision, error) {
			if r.Tool == "none" {
				return nil, nil
			}
			return &abi.PolicyDecision{Decision: abi.Allow, Reason: r.Server + ":" + r.Tool}, nil
		})
	out, err := h([]byte(`{"server":"fs","tool":"read"}`))
	if err != nil || string(out) != `{"decision":"allow","reason":"fs:read"}` {
		t.Fatalf("h() = %s, %v", out, err)
	}
	if _, err := h([]byte(`{"tool":"none"}`)); err == nil || !strings.Contains(err.Error(), "neither") {
		t.Fatalf("nil answer: %v", err)
	}
	if _, err := h([]byte(`{"tool":`)); err == nil || !strings.Contains(err.Error(), "decoding the policy input") {
		t.Fatalf("bad input: %v", err)
	}
}
