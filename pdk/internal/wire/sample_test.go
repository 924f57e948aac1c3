package wire

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcphost/mcphost/pdk/abi"
)

// Every hook has a sample request, it fills every field the request type
// has (so that a field added to a type shows in the sample or fails
// here), and it round-trips: what the guest's decoder reads from its JSON
// is the sample, and encoding/json takes it with unknown fields refused.
func TestSampleRequestsFillEveryFieldAndRoundTrip(t *testing.T) {
	decode := map[abi.Hook]func([]byte) (any, error){
		abi.HookPolicy:          func(b []byte) (any, error) { return DecodePolicyRequest(b) },
		abi.HookFilterTools:     func(b []byte) (any, error) { return DecodeFilterToolsRequest(b) },
		abi.HookMapNames:        func(b []byte) (any, error) { return DecodeMapNamesRequest(b) },
		abi.HookTransformResult: func(b []byte) (any, error) { return DecodeTransformResultRequest(b) },
		abi.HookAuth:            func(b []byte) (any, error) { return DecodeAuthRequest(b) },
	}
	for _, hook := range abi.Hooks {
		t.Run(string(hook), func(t *testing.T) {
			sample := abi.SampleRequest(hook)
			if sample == nil {
				t.Fatalf("no sample request for hook %s", hook)
			}
			if empty := emptyFields(reflect.ValueOf(sample), reflect.TypeOf(sample).Elem().Name()); len(empty) > 0 {
				t.Errorf("fields left empty: %q", empty)
			}
			b, err := json.Marshal(sample)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decode[hook](b)
			if err != nil {
				t.Fatalf("the guest's decoder refuses %s: %v", b, err)
			}
			if !reflect.DeepEqual(got, sample) {
				t.Errorf("decoded\n%#v\nwant\n%#v", got, sample)
			}
			strict := reflect.New(reflect.TypeOf(sample).Elem()).Interface()
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.DisallowUnknownFields()
			if err := dec.Decode(strict); err != nil || !reflect.DeepEqual(strict, sample) {
				t.Errorf("encoding/json: %v\n%#v", err, strict)
			}
		})
	}
	if abi.SampleRequest("nope") != nil {
		t.Error("a sample for a hook that does not exist")
	}
}

// emptyFields lists the paths of the zero values reachable from v: fields,
// elements of slices and values of maps.
func emptyFields(v reflect.Value, path string) []string {
	if v.IsZero() {
		return []string{path}
	}
	var out []string
	switch v.Kind() {
	case reflect.Pointer:
		if v.Elem().Kind() == reflect.Struct {
			out = emptyFields(v.Elem(), path)
		} // else a *bool that is set shows in the JSON, false or not
	case reflect.Interface:
		out = emptyFields(v.Elem(), path)
	case reflect.Struct:
		for i := range v.NumField() {
			out = append(out, emptyFields(v.Field(i), path+"."+v.Type().Field(i).Name)...)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil // json.RawMessage and bytes: set is enough
		}
		for i := range v.Len() {
			out = append(out, emptyFields(v.Index(i), path+"[]")...)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			out = append(out, emptyFields(v.MapIndex(k), path+"["+k.String()+"]")...)
		}
	}
	return out
}
