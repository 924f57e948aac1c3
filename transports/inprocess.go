package transports

import (
	"context"
	"net"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// inProcessTransport connects to a Go *mcp.Server running in this process.
// Each Connect starts a new server session over a fresh in-memory pipe.
type inProcessTransport struct {
	base
	server *mcp.Server
}

func newInProcess(s *Spec, opts Options) (*inProcessTransport, error) {
	t := &inProcessTransport{base: newBase(s, opts), server: opts.Server}
	if t.server == nil {
		return nil, t.errorf("no server given (Options.Server)")
	}
	return t, nil
}

// Connect implements mcp.Transport. It is mcp.NewInMemoryTransports with our
// own client end, so max_message_bytes applies as for the other transports
// (go-sdk's in-memory transport has a fixed 16 MiB limit that ends the
// session); the server end reads our requests without a limit.
func (t *inProcessTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	serverEnd, clientEnd := net.Pipe()
	st := &mcp.IOTransport{Reader: serverEnd, Writer: serverEnd, MaxLineLength: -1}
	// The session outlives ctx, which only bounds the connect.
	if _, err := t.server.Connect(context.WithoutCancel(ctx), st, nil); err != nil {
		serverEnd.Close()
		clientEnd.Close()
		return nil, t.errorf("connect: %w", err)
	}
	conn := newMsgConn(&t.base, newLineSource(clientEnd, t.limit))
	conn.writeFrame = func(_ context.Context, data []byte) error {
		_, err := clientEnd.Write(append(data, '\n'))
		return err
	}
	// Closing our end ends the server session: it reads EOF.
	conn.shutdown = func() error { clientEnd.Close(); return nil }
	conn.start()
	return conn, nil
}
