package gateway

import "time"

// WaitIdle lets tests see that no call is left in flight.
var WaitIdle = (*Relay).waitIdle

// SetAnswerWait shortens how long the gateway waits for a client's answers.
func SetAnswerWait(r *Relay, d time.Duration) { r.wait = d }
