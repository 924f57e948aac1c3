package wire

import (
	"fmt"

	"github.com/mcphost/mcphost/pdk/abi"
)

// Handler adapts a typed hook function to the byte level, with this
// package's decoder and encoder: the hook packages' Handle functions are
// built on it. A nil *Resp without an error is an error (a hook always
// answers).
func Handler[Req, Resp any](hook abi.Hook, decode func([]byte) (*Req, error), encode func(*Resp) ([]byte, error),
	fn func(*Req) (*Resp, error)) func([]byte) ([]byte, error) {
	return func(input []byte) ([]byte, error) {
		req, err := decode(input)
		if err != nil {
			return nil, fmt.Errorf("pdk: decoding the %s input: %w", hook, err)
		}
		resp, err := fn(req)
		if err != nil {
			return nil, err
		}
		if resp == nil {
			return nil, fmt.Errorf("pdk: the %s hook returned neither a result nor an error", hook)
		}
		out, err := encode(resp)
		if err != nil {
			return nil, fmt.Errorf("pdk: encoding the %s output: %w", hook, err)
		}
		return out, nil
	}
}
