package config

func systemManagedDir() string { return "/Library/Application Support/mcphost" }
