//go:build !linux

package main

import "time"

// treeCPU is not measured outside Linux.
func treeCPU(int) (gateway, backend time.Duration, ok bool) { return 0, 0, false }

// selfCPU is not measured outside Linux.
func selfCPU() time.Duration { return 0 }
