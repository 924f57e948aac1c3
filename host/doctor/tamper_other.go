//go:build !unix

package doctor

// writableBy cannot tell on this system (Windows keeps access control
// lists, not modes): nothing is reported.
func writableBy(string) (string, error) { return "", nil }
