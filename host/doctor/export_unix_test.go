//go:build unix

package doctor

// PretendUID makes the tamper check see uid as the running user, until the
// returned function is called.
func PretendUID(uid int) (restore func()) {
	old := euid
	euid = func() int { return uid }
	return func() { euid = old }
}
