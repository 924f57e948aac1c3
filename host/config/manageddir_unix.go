//go:build !darwin && !windows

package config

func systemManagedDir() string { return "/etc/mcphost" }
