package transports

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A response the SDK cannot decode (nested deeper than it accepts) fails
// only its call; the connection reads on.
func TestUndecodableResponseFailsOnlyItsCall(t *testing.T) {
	deep := strings.Repeat(`{"x":`, 1200) + `1` + strings.Repeat(`}`, 1200)
	data := `{"jsonrpc":"2.0","id":1,"result":` + deep + "}\n" +
		`{"jsonrpc":"2.0","id":2,"result":{}}` + "\n"
	c := newMsgConn(testBase(1<<20), newLineSource(bytes.NewReader([]byte(data)), 1<<20))
	c.start()
	defer c.Close()
	msg, err := c.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.ID.Raw() != int64(1) || resp.Error == nil || !strings.Contains(resp.Error.Error(), "could not be decoded") {
		t.Fatalf("first message %#v", msg)
	}
	msg, err = c.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if resp, ok := msg.(*jsonrpc.Response); !ok || resp.ID.Raw() != int64(2) || resp.Error != nil {
		t.Fatalf("second message %#v", msg)
	}
	// A request that cannot be decoded still ends the connection.
	c2 := newMsgConn(testBase(1<<20), newLineSource(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"x","params":`+deep+"}\n"), 1<<20))
	c2.start()
	defer c2.Close()
	if _, err := c2.Read(context.Background()); err == nil || !strings.Contains(err.Error(), "invalid JSON-RPC message") {
		t.Fatalf("undecodable request: %v", err)
	}
}

// A server's parse-error answer carries id null: it is logged and skipped,
// and the stream goes on.
func TestNullIDAnswerIsIgnored(t *testing.T) {
	data := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"result":{}}` + "\n"
	c := newMsgConn(testBase(1<<20), newLineSource(strings.NewReader(data), 1<<20))
	c.start()
	defer c.Close()
	msg, err := c.Read(context.Background())
	if err != nil {
		t.Fatalf("the id:null answer ended the connection: %v", err)
	}
	if resp, ok := msg.(*jsonrpc.Response); !ok || resp.ID.Raw() != int64(2) {
		t.Fatalf("first message passed on %#v, want the answer with id 2", msg)
	}
}
