package redact

import (
	"bytes"
	"fmt"
	"testing"
)

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	fmt.Fprint(w, "before secret-token\n")
	w.SetSecrets([]string{"secret-token-long", "secret-token", ""})
	fmt.Fprint(w, `Post "https://x/mcp?t=secret-token": dial; header secret-token-long`+"\n")
	want := "before secret-token\n" + `Post "https://x/mcp?t=****": dial; header ****` + "\n"
	if b.String() != want {
		t.Fatalf("wrote %q, want %q", b.String(), want)
	}
}
