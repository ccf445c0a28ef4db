// Package feed models an RSS feed's entries.
package feed

import "time"

// Entry is one item of a feed.
type Entry struct {
	Title string
	Link string
	PublishedAt time.Time
	Tags []string
}

// Recent returns the entries published after since.
func Recent(es []Entry, since time.Time) []Entry {
	var out []Entry
	for _, e := range es {
		if e.PublishedAt.After(since) { out = append(out, e) }
	}
	return out
}
