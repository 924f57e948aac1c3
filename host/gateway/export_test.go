package gateway

// WaitIdle lets tests see that no call is left in flight.
var WaitIdle = (*Relay).waitIdle
