package kv

import "strings"

func Key(s string) string { return strings.ToLower(s) + suffix }
