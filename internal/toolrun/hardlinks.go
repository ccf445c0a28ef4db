package toolrun

import "sort"

// A tool can replace a file of the tree with a hard link to a file
// outside it (a user's ~/.bashrc, a git hook, a file of node_modules):
// the content the tree shows is then that file's, and any later write to
// the tree's name (the user's editor, a revert done in place) lands in
// the outside file. Nothing about the link says where its other names
// are, so the check is by count: a regular file with more names than the
// snapshot holds, that did not already have them before the run, is an
// unsafe change. It is never kept: the link is replaced by a fresh copy
// of the pre-run content (renamed over the name, never written through),
// or removed when the file is new.

// fileID identifies a regular file.
type fileID struct{ Dev, Ino uint64 }

// hardlinked returns the paths of after's regular files that have a name
// outside what the snapshot sees, and did not before the run (new files,
// files whose identity changed, files that had one name).
func hardlinked(before, after *snapshot) map[string]bool {
	names := map[fileID]uint64{}
	for _, f := range after.Files {
		if f.isRegular() && f.Nlink > 1 {
			names[fileID{f.Dev, f.Ino}]++
		}
	}
	out := map[string]bool{}
	for p, f := range after.Files {
		if !f.isRegular() || f.Nlink <= 1 || names[fileID{f.Dev, f.Ino}] >= f.Nlink {
			continue
		}
		if b, ok := before.Files[p]; ok && b.isRegular() && b.Nlink > 1 && b.Dev == f.Dev && b.Ino == f.Ino {
			continue // the user's own link, there before the run
		}
		out[p] = true
	}
	return out
}

func (f fileState) isRegular() bool { return !f.Link && f.Special == 0 }

// linkedChanges returns the changes of the hard-linked paths that
// compareSnapshots did not list (the link shows the same content as the
// file it replaced), as edits, sorted by path.
func linkedChanges(before, after *snapshot, linked map[string]bool, listed []change) []change {
	seen := map[string]bool{}
	for _, c := range listed {
		seen[c.Path] = true
	}
	var out []change
	for p := range linked {
		if !seen[p] {
			out = append(out, change{Path: p, Op: opEdit, Before: before.Files[p], After: after.Files[p], Linked: true})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// treeChanges lists the changes between two snapshots of the work tree,
// hard-linked files marked (and listed even when their content did not
// change), by path.
func treeChanges(before, after *snapshot) []change {
	changes := compareSnapshots(before, after)
	linked := hardlinked(before, after)
	for i := range changes {
		changes[i].Linked = linked[changes[i].Path]
	}
	changes = append(changes, linkedChanges(before, after, linked, changes)...)
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	return changes
}
