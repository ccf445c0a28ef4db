package text

import "strings"

func Title(s string) string { return strings.ToLower(s) }

func Trim(s string) string { return strings.TrimSpace(s) }
