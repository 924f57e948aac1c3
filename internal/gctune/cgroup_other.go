//go:build !linux

package gctune

func cgroupMemoryLimit() uint64 { return 0 }
