package transports

// Names for the external tests (package transports_test) of what the
// package keeps unexported.
type (
	StdioTransport     = stdioTransport
	HeaderRoundTripper = headerRoundTripper
)
