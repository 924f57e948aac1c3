//go:build unix && !linux

package testenv

func procAlive(int) (alive, ok bool) { return false, false }

func listensOn(int, int) (owned, ok bool) { return false, false }
