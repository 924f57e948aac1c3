package host

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/transports"
)

// transports repeats config's transport names and message limit so that it
// need not import config; the host passes them through unconverted, so they
// must stay the same.
func TestTransportKindsMatchConfig(t *testing.T) {
	for _, c := range []struct{ config, transports string }{
		{config.TransportStdio, transports.KindStdio},
		{config.TransportSSE, transports.KindSSE},
		{config.TransportHTTP, transports.KindHTTP},
		{config.TransportWebSocket, transports.KindWebSocket},
		{config.TransportInProcess, transports.KindInProcess},
	} {
		if c.config != c.transports {
			t.Errorf("config transport %q is transports kind %q", c.config, c.transports)
		}
	}
	if config.DefaultMaxMessageBytes != transports.DefaultMaxMessageBytes {
		t.Errorf("DefaultMaxMessageBytes: config %d, transports %d", config.DefaultMaxMessageBytes, transports.DefaultMaxMessageBytes)
	}
}

// Every field of transports.Spec is filled from its config.Server
// counterpart, so that a field added to Spec fails here until the
// conversion carries it.
func TestTransportSpecCarriesEveryField(t *testing.T) {
	configName := map[string]string{"Kind": "Transport"} // the rest keep their names
	var sc config.Server
	cv := reflect.ValueOf(&sc).Elem()
	st := reflect.TypeFor[transports.Spec]()
	for _, f := range reflect.VisibleFields(st) {
		name := f.Name
		if n, ok := configName[name]; ok {
			name = n
		}
		field := cv.FieldByName(name)
		if !field.IsValid() {
			t.Fatalf("Spec.%s has no counterpart %s in config.Server", f.Name, name)
		}
		if field.Type() != f.Type {
			t.Fatalf("Spec.%s is %s, config.Server.%s is %s", f.Name, f.Type, name, field.Type())
		}
		field.Set(distinct(t, f.Type, f.Name))
	}

	spec := reflect.ValueOf(transportSpec(&sc))
	for _, f := range reflect.VisibleFields(st) {
		name := f.Name
		if n, ok := configName[name]; ok {
			name = n
		}
		if got, want := spec.FieldByName(f.Name).Interface(), cv.FieldByName(name).Interface(); !reflect.DeepEqual(got, want) {
			t.Errorf("Spec.%s = %v, want %v (config.Server.%s)", f.Name, got, want, name)
		}
	}
}

// distinct returns a non-zero value of type typ that names the field, so that
// two fields swapped by the conversion do not compare equal.
func distinct(t *testing.T, typ reflect.Type, field string) reflect.Value {
	t.Helper()
	v := reflect.New(typ).Elem()
	switch typ.Kind() {
	case reflect.String:
		v.SetString("value of " + field)
	case reflect.Int64:
		v.SetInt(int64(len(field)) * 1001)
	case reflect.Slice:
		v = reflect.MakeSlice(typ, 1, 1)
		v.Index(0).Set(distinct(t, typ.Elem(), field))
	case reflect.Map:
		v = reflect.MakeMap(typ)
		v.SetMapIndex(distinct(t, typ.Key(), "key of "+field), distinct(t, typ.Elem(), field))
	default:
		t.Fatalf("Spec.%s: no test value for a %s; add one", field, typ)
	}
	return v
}

// An invalid config entry never reaches transports (which no longer sees
// config.Server.Err): the host refuses it with the entry's own error.
func TestNewTransportRefusesInvalidEntry(t *testing.T) {
	bad := errors.New("bad entry")
	s := &server{cfg: &config.Server{ID: "g", Transport: config.TransportStdio, Command: "x", Err: bad}}
	tr, err := s.newTransport()
	if err == nil || tr != nil {
		t.Fatalf("newTransport = %v, %v; want an error", tr, err)
	}
	if !errors.Is(err, bad) || !strings.Contains(err.Error(), `"g"`) {
		t.Errorf("error %q does not name the server and wrap the entry's error", err)
	}
}
