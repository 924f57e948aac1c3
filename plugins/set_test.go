package plugins

import "testing"

func TestLoadEmpty(t *testing.T) {
	opts, _ := testOptions(t)
	set, err := Load(ctx(t), nil, opts)
	if err != nil || len(set.Plugins()) != 0 || set.Err() != nil {
		t.Fatalf("%v %v", set, err)
	}
	set.Close(ctx(t))
}
