package authn

import (
	"net/url"
	"testing"
	"time"
)

// BenchmarkDPoPProof: the cost DPoP adds to every request (an ES256
// signature).
func BenchmarkDPoPProof(b *testing.B) {
	k, err := newDPoPKey(time.Now)
	if err != nil {
		b.Fatal(err)
	}
	u, _ := url.Parse("https://mcp.example.com/mcp")
	for b.Loop() {
		if _, err := k.proof("POST", u, "access-token-value"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStoredToken: handing out a stored, fresh token (every request
// of a logged-in server).
func BenchmarkStoredToken(b *testing.B) {
	src := &storedSource{id: "srv", now: time.Now, rec: &Record{AccessToken: "at", ExpiresAt: time.Now().Add(time.Hour)}}
	for b.Loop() {
		if _, err := src.Token(); err != nil {
			b.Fatal(err)
		}
	}
}
